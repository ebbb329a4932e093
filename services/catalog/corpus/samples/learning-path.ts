// Asks for the steps toward a learning path, skipping what the agent already knows.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

interface Step {
  uid: string;
  title: string;
  duration_in_minutes: number | null;
}

const client = new Client({ name: 'learner', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:3100/mcp')));

const result = await client.callTool({
  name: 'get_learning_path',
  arguments: {
    target_uid: 'cogitave.learn.path.agent-onboarding',
    known_uids: ['cogitave.core.architecture'],
  },
});
if (result.isError) throw new Error(JSON.stringify(result.content));
const path = result.structuredContent as { results: Step[]; total_duration_in_minutes: number };
path.results.forEach((step, index) => {
  console.log(`${index + 1}. ${step.title} (${step.duration_in_minutes ?? '-'} min)`);
});
console.log(`total: ${path.total_duration_in_minutes} min`);

await client.close();
