// Connects to a local Cogitave Core with the v1 MCP SDK and reads the graph's vocabulary first.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'onboarding-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3100/mcp')));

const schema = await client.callTool({ name: 'describe_schema', arguments: {} });
const vocabulary = schema.structuredContent as
  { labels: { label: string; count: number }[]; edge_types: { type: string }[] } | undefined;
for (const label of vocabulary?.labels ?? []) {
  console.log(`${label.label}: ${label.count} nodes`);
}
console.log('edge types:', vocabulary?.edge_types.map((edge) => edge.type).join(', '));

await client.close();
