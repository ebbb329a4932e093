import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import { startServe, type StartedServe } from '../topology/processes.js';

/**
 * Request ids across gateway processes: two `serve --role gateway` processes on one Postgres
 * take intakes from many clients at once; one of them is killed (SIGKILL) while its intakes
 * are in flight. Every id of the year is then held by exactly one intake: 1..n with no gap,
 * each allocated number bound to its command and proposed once, once the survivor has taken
 * one more intake (which completes whatever the killed process left half-done).
 */

let db: ThrowawayDatabase;
let admin: pg.Pool;
const started: StartedServe[] = [];

const gateway = async (name: string): Promise<StartedServe> => {
  const entry = await startServe({
    name,
    role: 'gateway',
    env: cliEnv({ DATABASE_URL: db.url, COGITAVE_HTTP_PORT: '0' }),
    readyTimeoutMs: 60_000,
  });
  started.push(entry);
  return entry;
};

const connect = async (url: string): Promise<Client> => {
  const client = new Client({ name: 'intake-ids-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
};

const intakeArgs = (label: string) => ({
  title: `Export audit trails as CSV (${label})`,
  problem: 'Auditors copy history by hand today, which takes hours and loses rows.',
  product: 'core',
  requester: 'audit-team',
  acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
});

/** `request_intake` until `count` answers; a call cut off by the kill counts as no answer. */
const proposeMany = async (client: Client, label: string, count: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    try {
      const result = (await client.callTool({
        name: 'request_intake',
        arguments: intakeArgs(`${label}-${String(i)}`),
      })) as { isError?: boolean; structuredContent?: { request_id?: string } };
      const id = result.structuredContent?.request_id;
      if (result.isError !== true && id !== undefined) ids.push(id);
    } catch {
      return ids;
    }
  }
  return ids;
};

const rows = async <T extends pg.QueryResultRow>(sql: string): Promise<T[]> =>
  (await admin.query<T>(sql)).rows;

beforeAll(async () => {
  db = await createThrowawayDatabase('intake_ids_e2e');
  admin = new pg.Pool({ connectionString: db.url, max: 2 });
});

afterAll(async () => {
  await Promise.all(started.map((entry) => entry.process.stop(2000)));
  await admin.end();
  await db.drop();
});

describe('request ids with two gateway processes on one Postgres', () => {
  it('given clients on two gateways and one gateway killed mid-way, when the survivor takes one more intake, then every id of the year is held by one request, gap-free', async () => {
    const [a, b] = await Promise.all([gateway('gateway-a'), gateway('gateway-b')]);
    const clientsA = await Promise.all(Array.from({ length: 6 }, () => connect(a.url)));
    const clientsB = await Promise.all(Array.from({ length: 6 }, () => connect(b.url)));
    const onA = clientsA.map((client, i) => proposeMany(client, `a${String(i)}`, 8));
    const onB = clientsB.map((client, i) => proposeMany(client, `b${String(i)}`, 8));
    // Kill B once it has answered some intakes, while its clients keep calling.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const [count] = await rows<{ n: string }>(
        `SELECT count(*) AS n FROM event_store.events WHERE stream_id LIKE 'request-%'`,
      );
      if (Number(count?.n) >= 12) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    b.process.child.kill('SIGKILL');
    const answered = [...(await Promise.all(onA)), ...(await Promise.all(onB))].flat();
    expect(new Set(answered).size).toBe(answered.length);
    expect(answered.length).toBeGreaterThanOrEqual(48);

    const survivor = clientsA[0]!;
    const [last] = await proposeMany(survivor, 'after', 1);
    expect(last).toBeDefined();

    const allocated = await rows<{ request_id: string; command_id: string }>(
      `SELECT content::jsonb #>> '{data,requestId}' AS request_id,
              content::jsonb #>> '{data,commandId}' AS command_id
         FROM event_store.events WHERE stream_id LIKE 'counter-request-ids-%'
        ORDER BY stream_id, stream_revision`,
    );
    const year = /^req-(\d{4})-/.exec(last!)?.[1];
    expect(allocated.map((row) => row.request_id)).toEqual(
      allocated.map((_, i) => `req-${year ?? '?'}-${String(i + 1).padStart(4, '0')}`),
    );
    expect(new Set(allocated.map((row) => row.command_id)).size).toBe(allocated.length);
    // Every answered id is among them, and every allocation has its request and its binding.
    const ids = new Set(allocated.map((row) => row.request_id));
    for (const id of answered) expect(ids.has(id)).toBe(true);
    const proposed = await rows<{ stream_id: string; n: string }>(
      `SELECT stream_id, count(*) AS n FROM event_store.events
        WHERE stream_id LIKE 'request-%' GROUP BY stream_id`,
    );
    expect(proposed.map((row) => row.stream_id.slice('request-'.length)).sort()).toEqual(
      [...ids].sort(),
    );
    expect(proposed.every((row) => row.n === '1')).toBe(true);
    const bound = await rows<{ n: string }>(
      `SELECT count(*) AS n FROM event_store.events WHERE stream_id LIKE 'intake-command-%'`,
    );
    expect(Number(bound[0]?.n)).toBe(allocated.length);
    await Promise.all([...clientsA].map((client) => client.close()));
  });
});
