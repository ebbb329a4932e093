import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeArgs, sleep, until, type ToolResultLike } from '../chaos/support.js';
import { cliEnv, runCli } from '../support/cli.js';
import { startEsdbDouble, type EsdbDouble, type LogRecord } from '../support/esdb-double/index.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import { DOUBLE_OWNER, DOUBLE_REPO, startTopology, type Topology } from '../topology/topology.js';

/**
 * The product with its events in EventStoreDB (the protocol double, in this process) and its
 * read models in Postgres: a gateway, a projector and a GitHub reactor (`cogitave serve --role
 * …`, GitHub played by its double). An agent proposes intakes and a stage change, a maintainer
 * merges the pull request, the webhook applies it; EventStoreDB restarts in the middle of it
 * while agents keep proposing. Afterwards every acknowledged proposal is in the log once, each
 * has exactly one GitHub issue, the merge was applied once, and `cogitave verify` and
 * `cogitave replay` agree with the log.
 */
let db: ThrowawayDatabase;
let esdb: EsdbDouble;
let topology: Topology | undefined;
const clients: Client[] = [];

const env = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(cliEnv({ EVENTSTORE_URL: esdb.url, COGITAVE_POLL_INTERVAL_MS: '100' })).filter(
      ([key]) => !key.startsWith('GITHUB_'),
    ),
  );

beforeAll(async () => {
  db = await createThrowawayDatabase('esdb_story');
  esdb = await startEsdbDouble();
  topology = await startTopology({
    databaseUrl: db.url,
    gateways: 1,
    env: env(),
    readyTimeoutMs: 90_000,
  });
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await topology?.stop();
  await esdb.close();
  await db.drop();
});

const connect = async (name: string): Promise<Client> => {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${topology!.gateways[0]!.url}/mcp`)),
  );
  clients.push(client);
  return client;
};

const call = async (
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResultLike> =>
  (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 60_000,
  })) as ToolResultLike;

const succeed = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await call(client, name, args);
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent!;
};

/** Cogitave's own events in the log (system events and projection links left out). */
const ours = (): LogRecord[] => esdb.log.all().filter((record) => !record.streamId.startsWith('$'));
const typeOf = (record: LogRecord): string => record.type;

describe('the product on EventStoreDB', () => {
  it('given a gateway, a projector and a reactor on EventStoreDB, when agents propose, a maintainer merges and EventStoreDB restarts meanwhile, then nothing acknowledged is lost, nothing is applied twice, and verify and replay agree', async () => {
    if (!topology) throw new Error('the topology did not start');
    const { double: github, maintainer } = topology.github;
    if (!github || !maintainer) throw new Error('the GitHub double is missing');
    const agent = await connect('esdb-agent');

    // Intake → the reactor opens the GitHub issue (its subscription to $all on EventStoreDB).
    const intake = await succeed(agent, 'request_intake', intakeArgs('first'));
    const requestId = intake.request_id as string;
    await until(
      () => github.listIssues(DOUBLE_OWNER, DOUBLE_REPO).length === 1,
      'the intake issue',
      30_000,
    );

    // Proposals in flight while EventStoreDB restarts: the adapter retries them with the same
    // event ids, so each is acknowledged and stored once.
    const loaders = await Promise.all([connect('esdb-load-1'), connect('esdb-load-2')]);
    const refused: string[] = [];
    const burst = async (label: string, count: number): Promise<string[]> => {
      const results = await Promise.all(
        Array.from({ length: count }, (_, n) =>
          call(loaders[n % loaders.length]!, 'request_intake', intakeArgs(`${label}-${n}`)),
        ),
      );
      for (const result of results.filter((r) => r.isError))
        refused.push(JSON.stringify(result.content));
      return results.flatMap((r) => (r.isError ? [] : [r.structuredContent!.request_id as string]));
    };
    const restartWhile = async <T>(work: Promise<T>, downMs: number): Promise<T> => {
      await sleep(100);
      const cut = esdb.subscriptionsCut;
      await esdb.restart(downMs);
      // The restart really cut the projector's and the reactor's subscriptions.
      expect(esdb.subscriptionsCut - cut).toBeGreaterThanOrEqual(2);
      return work;
    };
    const acknowledged = await restartWhile(burst('first-restart', 3), 1_500);

    // A stage proposal, then a second restart before the reactor has opened its pull request.
    await succeed(agent, 'advance_stage', {
      request_id: requestId,
      to_stage: 'accepted',
      evidence: { criteria: { 'ac-1': 'agreed with the requester' } },
      rationale: 'The Definition of Done for accepted is met; evidence attached.',
    });
    acknowledged.push(...(await restartWhile(burst('second-restart', 1), 800)));
    expect(refused).toEqual([]);
    const pending = async () =>
      (await succeed(agent, 'get_request', { request_id: requestId })).request as {
        stage: string;
        pendingProposal: { pullNumber: number | null } | null;
      };
    let pull: number | null = null;
    await until(
      async () => (pull = (await pending()).pendingProposal?.pullNumber ?? null) !== null,
      'the draft pull request',
      30_000,
    );

    // The maintainer merges; the signed webhook goes to the gateway, which applies it.
    const merged = await maintainer.merge(pull!);
    expect(merged).toMatchObject({ status: 200, body: { status: 'applied' } });
    await until(async () => (await pending()).stage === 'accepted', 'stage accepted', 30_000);

    // Every acknowledged intake, and the first, is in the log once, with exactly one issue.
    const proposed = ours().filter((record) => typeOf(record) === 'RequestProposed');
    const proposedStreams = proposed.map((record) => record.streamId);
    expect(new Set(proposedStreams).size).toBe(proposedStreams.length);
    for (const id of [requestId, ...acknowledged]) {
      expect(proposedStreams).toContain(`request-${id}`);
    }
    for (const id of acknowledged) {
      await until(
        async () => !(await call(agent, 'get_request', { request_id: id })).isError,
        `request ${id} in the read model`,
        30_000,
      );
    }
    await until(
      () => github.listIssues(DOUBLE_OWNER, DOUBLE_REPO).length === proposed.length,
      `one issue per proposal (${proposed.length})`,
      60_000,
    );
    await sleep(500);
    expect(github.listIssues(DOUBLE_OWNER, DOUBLE_REPO)).toHaveLength(proposed.length);
    // The merge applied once; each stream is gap-free and no event is stored twice.
    const stream = ours().filter((record) => record.streamId === `request-${requestId}`);
    expect(stream.filter((record) => typeOf(record) === 'StageAdvanced')).toHaveLength(1);
    const ids = ours().map((record) => record.id);
    expect(new Set(ids).size).toBe(ids.length);
    const revisions = new Map<string, bigint[]>();
    for (const record of ours()) {
      revisions.set(record.streamId, [...(revisions.get(record.streamId) ?? []), record.revision]);
    }
    for (const [streamId, list] of revisions) {
      expect(list, streamId).toEqual(list.map((_, index) => BigInt(index)));
    }
    expect(esdb.violations).toEqual([]);

    // The auditor, on EventStoreDB: every chain holds, and a rebuild equals the live read models.
    const auditEnv = cliEnv({ DATABASE_URL: db.url, EVENTSTORE_URL: esdb.url });
    const [verify, replay] = await Promise.all([
      runCli(['verify'], auditEnv, 90_000),
      runCli(['replay', '--json'], auditEnv, 120_000),
    ]);
    expect(verify.code, `${verify.stdout}${verify.stderr}`).toBe(0);
    expect(verify.stdout).toMatch(
      new RegExp(`^verified ${ours().length} events in \\d+ streams\\b`, 'm'),
    );
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ equal: true });
  });
});
