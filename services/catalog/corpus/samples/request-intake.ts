// Proposes a work request. The server appends RequestProposed and opens a GitHub issue; the
// request stays a draft in stage `proposed` until a maintainer acts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'intake-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3100/mcp')));

const proposed = await client.callTool({
  name: 'request_intake',
  arguments: {
    title: 'Search returns code samples by language',
    problem: 'Agents cannot restrict code_sample_search to TypeScript samples.',
    product: 'cogitave-core',
    requester: 'team:agents',
    acceptance_criteria: [
      'code_sample_search accepts language and returns only samples in it',
      'p95 latency stays under 200 ms on the shipped corpus',
    ],
    priority: 'medium',
  },
});
if (proposed.isError) {
  // A refused intake appends nothing; the message says which field to fix.
  console.error(proposed.content);
} else {
  console.log(proposed.structuredContent);
}

await client.close();
