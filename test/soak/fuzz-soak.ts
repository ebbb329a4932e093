/**
 * Fuzz soak over real HTTP: the CI fuzz (`test/int/gateway/fuzz.int.test.ts`) drives the
 * server factory in-process; this drives the whole `/mcp` endpoint (body limit, Host/Origin,
 * era routing, 2025-11-25 sessions) with v1 SDK clients, for longer.
 *
 *   npx tsx test/soak/fuzz-soak.ts
 *
 * Environment: SOAK_RUNS (argument sets per tool, default 2000), SOAK_CLIENTS (concurrent
 * clients, default 8), FUZZ_SEED (replays a run), TEST_DATABASE_URL (admin connection for the
 * throwaway database). Exits 1 on the first call that breaks a property, printing it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { ALL_TOOLS } from '../../mcp-gateway/tools/index.js';
import { createThrowawayDatabase } from '../support/postgres.js';
import {
  createOutputValidator,
  ingestShippedCorpus,
  startGateway,
  waitForProjections,
} from '../e2e/gateway/support.js';
import { fuzzArguments } from '../int/gateway/fuzz-arbitraries.js';

const RUNS = Number(process.env.SOAK_RUNS ?? '2000');
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? '8');
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CODED = /^[A-Z_]+: \S.{8,}/s;

const main = async (): Promise<number> => {
  const db = await createThrowawayDatabase('soak_fuzz');
  const gateway = await startGateway(db.url);
  const clients: Client[] = [];
  let failure: string | undefined;
  const counts = { calls: 0, errors: 0, successes: 0 };
  try {
    await ingestShippedCorpus(gateway.app);
    await new Promise((resolve) => setTimeout(resolve, 600));
    await waitForProjections([gateway.app]);
    for (let i = 0; i < CLIENTS; i += 1) {
      const client = new Client({ name: 'soak', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.mcpUrl)));
      clients.push(client);
    }
    const { tools } = await (clients[0] as Client).listTools();
    const validate = createOutputValidator();
    const started = performance.now();
    for (const tool of tools) {
      const samples = fc.sample(fuzzArguments(tool.inputSchema, {}), { numRuns: RUNS, seed: SEED });
      let next = 0;
      await Promise.all(
        clients.map(async (client) => {
          while (failure === undefined && next < samples.length) {
            const args = samples[next];
            next += 1;
            const where = `${tool.name} ${JSON.stringify(args).slice(0, 300)}`;
            try {
              const result = await client.callTool({
                name: tool.name,
                arguments: args as Record<string, unknown>,
              });
              counts.calls += 1;
              const text = JSON.stringify(result.content);
              if (result.isError === true) {
                counts.errors += 1;
                const first = (result.content as { text?: string }[])[0]?.text ?? '';
                if (!CODED.test(first) || first.startsWith('internal error'))
                  failure = `${where}: isError without a coded message: ${text}`;
              } else {
                counts.successes += 1;
                const problems = validate(tool.outputSchema ?? {}, result.structuredContent);
                if (problems.length > 0)
                  failure = `${where}: outside outputSchema: ${problems.join('; ')}`;
              }
            } catch (error) {
              failure = `${where}: threw ${(error as Error).message}`;
            }
          }
        }),
      );
      if (failure !== undefined) break;
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `fuzz soak over HTTP: ${String(counts.calls)} calls to ${String(ALL_TOOLS.length)} tools (${String(counts.errors)} isError, ${String(counts.successes)} results) in ${seconds.toFixed(1)} s, seed ${String(SEED)}\n`,
    );
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await gateway.close();
    await db.drop();
  }
  if (failure !== undefined) {
    process.stderr.write(`FAILED (seed ${String(SEED)}): ${failure}\n`);
    return 1;
  }
  return 0;
};

process.exitCode = await main();
