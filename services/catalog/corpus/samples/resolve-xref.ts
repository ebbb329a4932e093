// Follows an @uid link found in a node's Markdown to the resource it names.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'reader', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3100/mcp')));

const resolved = await client.callTool({
  name: 'resolve_xref',
  arguments: { xref: '@cogitave.adr.0001-postgres-event-store' },
});
const target = resolved.structuredContent as { uri: string; title: string } | undefined;
if (target) {
  const resource = await client.readResource({ uri: target.uri });
  console.log(target.title, resource.contents.length);
}

await client.close();
