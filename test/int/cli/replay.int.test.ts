import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_CHANNEL } from '../../../projections/change-payload.js';
import { readCheckpoint } from '../../../projections/checkpoints.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import { projectionMigrationSets } from '../../../projections/runner.js';
import { READ_MODEL_SCHEMA } from '../../../projections/types.js';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { CommandMetadata } from '../../../services/commands/metadata.js';
import type { RequestCommandHandlers } from '../../../services/requests/commands.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import { PROJECTIONS } from '../../../bin/read-models.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { cliEnv, runCli, type CliResult } from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

// `cogitave replay` as an operator runs it: Request events decided by the real handlers, the
// read model caught up by the real runner, then the CLI rebuilds it beside the live one.
const logger = createLogger('silent');
let throwaway: ThrowawayDatabase;
let database: Database;
let store: PostgresEventStore;
let handlers: RequestCommandHandlers;
let runner: ProjectionRunner | undefined;
let env: NodeJS.ProcessEnv;
let clock = Date.UTC(2026, 2, 2, 9, 0);

const meta = (actor: string): CommandMetadata => {
  clock += 60_000;
  return { commandId: randomUUID(), actor, at: new Date(clock).toISOString() };
};

/** One request's life; `variant` picks how it goes after intake. */
const lifecycle = async (variant: number): Promise<void> => {
  const { requestId } = await handlers.proposeIntake(
    {
      title: `Export the audit log as CSV (${variant})`,
      problem: 'Auditors cannot export the audit log, so they copy rows by hand every month.',
      product: variant % 2 === 0 ? 'cogitave-core' : 'cogitave-docs',
      requester: 'carol',
      acceptanceCriteria: ['The export contains every audit event of the chosen month'],
      links: [],
      priority: 'medium',
    },
    meta('agent:intake'),
  );
  await handlers.recordIntakeIssue(
    {
      requestId,
      repository: 'cogitave/requests',
      issueNumber: 100 + variant,
      issueUrl: `https://github.com/cogitave/requests/issues/${100 + variant}`,
    },
    meta('reactor'),
  );
  if (variant % 4 === 3) {
    await handlers.rejectIntake(
      { requestId, decidedBy: 'maintainer:bob', via: 'local', reason: 'A duplicate of another.' },
      meta('maintainer:bob'),
    );
    return;
  }
  const proposal = await handlers.proposeStageAdvance(
    {
      requestId,
      toStage: 'accepted',
      evidence: {},
      rationale: 'Triage agrees the problem is real.',
    },
    meta('agent:pm'),
  );
  await handlers.recordProposalPullRequest(
    {
      requestId,
      proposalId: proposal.proposalId,
      repository: 'cogitave/requests',
      branch: `cogitave/${proposal.proposalId}`,
      pullNumber: 200 + variant,
      pullUrl: `https://github.com/cogitave/requests/pull/${200 + variant}`,
    },
    meta('reactor'),
  );
  const decision = { requestId, proposalId: proposal.proposalId, decidedBy: 'maintainer:bob' };
  if (variant % 4 === 2) {
    await handlers.rejectProposal(
      { ...decision, via: 'github', reason: 'Not this quarter.' },
      meta('maintainer:bob'),
    );
    await handlers.withdraw({ requestId, reason: 'No longer needed.' }, meta('carol'));
    return;
  }
  await handlers.approveProposal(
    { ...decision, via: 'github', mergeCommitSha: 'a'.repeat(40) },
    meta('maintainer:bob'),
  );
};

const startRunner = async (): Promise<ProjectionRunner> => {
  const started = createProjectionRunner({
    database,
    eventStore: store,
    logger,
    projections: PROJECTIONS,
    lagProbeIntervalMs: 0,
    lockPollIntervalMs: 100,
  });
  started.start();
  await caughtUp();
  return started;
};

/**
 * Until the live checkpoint has applied every Request event appended so far. By count: the
 * log's visible end is cluster-wide, so a position read now can trail what was appended while
 * other databases of the server are busy.
 */
const caughtUp = async (timeoutMs = 30_000): Promise<void> => {
  const { rows } = await database.pool.query<{ n: string }>(
    "SELECT count(*) AS n FROM event_store.events WHERE stream_id LIKE 'request-%'",
  );
  const appended = BigInt(rows[0]?.n ?? '0');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const applied = (await readCheckpoint(database.pool, READ_MODEL_SCHEMA, 'requests'))
      ?.eventsApplied;
    if (applied === appended) return;
    if (Date.now() > deadline) {
      throw new Error(`the live projection applied ${applied ?? 0n} of ${appended} events`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const stopRunner = async (): Promise<void> => {
  await runner?.stop();
  runner = undefined;
};

/** `cogitave replay` with no names compares every table of every registered projection. */
const ALL_TABLES = PROJECTIONS.reduce((count, projection) => count + projection.tables.length, 0);

const tableLines = (result: CliResult): Map<string, string> =>
  new Map(
    result.stdout
      .split('\n')
      .filter((line) => /^(requests|request_history|resources)\s/.test(line))
      .map((line) => [line.split(/\s+/)[0]!, line]),
  );

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('cli_replay');
  database = await openDatabase({ databaseUrl: throwaway.url, dataDir: '', poolSize: 8, logger });
  await migrate(
    database.pool,
    [eventStoreMigrations, ...projectionMigrationSets(PROJECTIONS)],
    logger,
  );
  store = createPostgresEventStore({ database, logger, pollIntervalMs: 100 });
  handlers = createRequestCommandHandlers({ eventStore: store });
  for (let variant = 0; variant < 8; variant += 1) await lifecycle(variant);
  runner = await startRunner();
  env = cliEnv({ DATABASE_URL: throwaway.url });
});

afterAll(async () => {
  await stopRunner();
  await store.close();
  await database.close();
  await throwaway.drop();
});

describe('cogitave replay', () => {
  it('given a caught-up read model, when replayed, then every table is equal and it exits 0', async () => {
    const checkpoint = await readCheckpoint(database.pool, READ_MODEL_SCHEMA, 'requests');
    const result = await runCli(['replay'], env, 60_000);
    expect(result.code, result.stderr).toBe(0);
    const tables = tableLines(result);
    expect([...tables.keys()]).toEqual(['requests', 'request_history', 'resources']);
    for (const line of tables.values()) expect(line).toMatch(/\sequal$/);
    expect(result.stdout).toContain(
      `rebuilt ${checkpoint!.eventsApplied} events up to the live checkpoint ${checkpoint!.position}`,
    );
    expect(result.stdout).toContain(`all ${ALL_TABLES} tables equal`);
    // Progress goes to stderr as plain lines when it is not a terminal.
    expect(result.stderr).toMatch(/replay requests: 100% \d+\/\d+ events, \d+ events\/s/);

    // One thread or three: the same rebuild.
    const json = await runCli(['replay', 'requests', '--json', '--workers', '3'], env, 60_000);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      equal: boolean;
      projections: { projection: string; position: string; tables: { equal: boolean }[] }[];
    };
    expect(report.equal).toBe(true);
    expect(report.projections).toHaveLength(1);
    const single = await runCli(['replay', 'requests', '--json', '--workers', '1'], env, 60_000);
    expect(single.code, single.stderr).toBe(0);
    expect((JSON.parse(single.stdout) as typeof report).projections[0]?.tables).toEqual(
      report.projections[0]?.tables,
    );
    expect(report.projections[0]).toMatchObject({
      projection: 'requests',
      position: checkpoint!.position,
    });
    // The shadow is gone unless --keep.
    const { rows } = await database.pool.query(
      "SELECT 1 FROM pg_namespace WHERE nspname LIKE 'cogitave_replay_%'",
    );
    expect(rows).toHaveLength(0);
  });

  it('given a runner applying new events meanwhile, when replayed, then both sides are compared at the same checkpoint and are equal', async () => {
    const enough = new AbortController();
    const more = (async () => {
      for (let variant = 100; !enough.signal.aborted; variant += 1) await lifecycle(variant);
    })();
    let compared: string | undefined;
    try {
      const result = await runCli(['replay'], env, 60_000);
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain(`all ${ALL_TABLES} tables equal`);
      compared = /up to the live checkpoint (\S+)/.exec(result.stdout)?.[1];
    } finally {
      enough.abort();
      await more;
    }
    await caughtUp();
    // The live side did move on past the point the replay compared at.
    const live = await readCheckpoint(database.pool, READ_MODEL_SCHEMA, 'requests');
    expect(compared).toBeDefined();
    expect(live!.position! > compared!).toBe(true);
  });

  it('given a runner holding the projection, when --swap is asked, then it is refused with the reason and nothing changes', async () => {
    const before = await readCheckpoint(database.pool, READ_MODEL_SCHEMA, 'requests');
    const result = await runCli(['replay', '--swap'], env, 60_000);
    expect(result.code).toBe(65);
    expect(result.stderr).toContain(
      'projection "requests" is being applied by another process (it holds the runner\'s lock on read_model.requests)',
    );
    expect(result.stdout).toBe('');
    const after = await readCheckpoint(database.pool, READ_MODEL_SCHEMA, 'requests');
    expect(after?.position).toBe(before?.position);
  });

  it('given a tampered live row, when replayed, then that table is DIFFERENT and named, and it exits 1; --swap then makes live equal again', async () => {
    await stopRunner();
    const { rows } = await database.pool.query<{ request_id: string; title: string }>(
      'SELECT request_id, title FROM read_model.requests ORDER BY request_id LIMIT 1',
    );
    const target = rows[0]!;
    await database.pool.query(
      "UPDATE read_model.requests SET title = 'Tampered by hand' WHERE request_id = $1",
      [target.request_id],
    );

    const differs = await runCli(['replay'], env, 60_000);
    expect(differs.code, differs.stderr).toBe(1);
    const tables = tableLines(differs);
    expect(tables.get('requests')).toMatch(/\sDIFFERENT$/);
    expect(tables.get('request_history')).toMatch(/\sequal$/);
    expect(tables.get('resources')).toMatch(/\sequal$/);
    expect(differs.stdout).toContain('DIFFERENT: requests.requests');

    const live = await readCheckpoint(database.pool, READ_MODEL_SCHEMA, 'requests');
    const indexesBefore = await database.pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = 'read_model' ORDER BY indexname",
    );
    // A gateway following the change feed hears that everything may have changed.
    const listener = new pg.Client({ connectionString: throwaway.url });
    await listener.connect();
    const notices: string[] = [];
    listener.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL) notices.push(message.payload ?? '');
    });
    await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
    const swapped = await runCli(['replay', '--swap'], env, 60_000).finally(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await listener.end();
    });
    // The exit code reports the comparison made before the swap.
    expect(swapped.code, swapped.stderr).toBe(1);
    expect(swapped.stdout).toContain(
      `swapped: read_model now holds the rebuild of requests (checkpoint ${live!.position})`,
    );
    expect(notices.map((payload) => JSON.parse(payload) as unknown)).toEqual([
      {
        projection: 'requests',
        position: live!.position,
        uris: [],
        collections: [],
        truncated: true,
      },
    ]);
    const restored = await database.pool.query<{ title: string }>(
      'SELECT title FROM read_model.requests WHERE request_id = $1',
      [target.request_id],
    );
    expect(restored.rows[0]?.title).toBe(target.title);
    const promoted = await readCheckpoint(database.pool, READ_MODEL_SCHEMA, 'requests');
    expect(promoted).toMatchObject({
      position: live!.position,
      eventsApplied: live!.eventsApplied,
      error: null,
    });
    // The promoted tables carry the migrations' index names, and no shadow is left.
    const indexesAfter = await database.pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE schemaname = 'read_model' ORDER BY indexname",
    );
    expect(indexesAfter.rows).toEqual(indexesBefore.rows);
    const shadows = await database.pool.query(
      "SELECT 1 FROM projections.checkpoints WHERE target_schema <> 'read_model'",
    );
    expect(shadows.rows).toHaveLength(0);

    const again = await runCli(['replay'], env, 60_000);
    expect(again.code, again.stderr).toBe(0);
    for (const line of tableLines(again).values()) expect(line).toMatch(/\sequal$/);

    // The runner goes on from the promoted checkpoint.
    runner = await startRunner();
    await lifecycle(900);
    await caughtUp();
    const next = await runCli(['replay'], env, 60_000);
    expect(next.code, next.stderr).toBe(0);
  });

  it.each(['0', '17', 'two'])(
    'given --workers %s, when replayed, then it is a usage error saying what is allowed',
    async (workers) => {
      const result = await runCli(['replay', '--workers', workers], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('expected a whole number from 1 to 16');
      expect(result.stdout).toBe('');
    },
  );

  it('given an unknown projection, when replayed, then it is a usage error listing the known ones', async () => {
    const result = await runCli(['replay', 'requests', 'invoices'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown projection "invoices"; known: requests');
    expect(result.stdout).toBe('');
  });
});
