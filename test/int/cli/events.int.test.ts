import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import { findChainBreak } from '../../../services/event-store/hash-chain.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import { comparePositions } from '../../../services/event-store/position.js';
import type { EventToAppend, RecordedEvent } from '../../../services/event-store/types.js';
import { createLogger } from '../../../services/runtime/logger.js';
import {
  cliEnv,
  lines,
  runCli,
  spawnCli,
  stopCli,
  type CliResult,
  type RunningCli,
} from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * The `cogitave events` commands, run as a real child process against a throwaway server
 * Postgres that the test fills through the real event store.
 */
const logger = createLogger('silent');
const tag = randomBytes(3).toString('hex');
const ORDER = `order-${tag}`;
const INVOICE = `invoice-${tag}`;
const AUDIT = `audit-${tag}`;

let throwaway: ThrowawayDatabase;
let database: Database;
let store: PostgresEventStore;
let env: NodeJS.ProcessEnv;

const newEvent = (type: string, data: unknown): EventToAppend => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    actor: 'agent:cli-test',
    correlationId: randomUUID(),
    causationId: randomUUID(),
    at: new Date().toISOString(),
  },
});

/** A parsed `--json` line: the recorded event with its revision as a string. */
type JsonEvent = Omit<RecordedEvent, 'revision'> & { revision: string };

const jsonLines = (stdout: string): JsonEvent[] =>
  lines(stdout).map((line) => JSON.parse(line) as JsonEvent);

const asJson = (event: RecordedEvent): JsonEvent => ({
  ...event,
  revision: event.revision.toString(),
});

const expectExit = (result: CliResult, code: number): void => {
  expect(
    result.code,
    `exit code of the CLI\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
  ).toBe(code);
};

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('cli_events');
  database = await openDatabase({ databaseUrl: throwaway.url, dataDir: '', poolSize: 4, logger });
  await migrate(database.pool, [eventStoreMigrations], logger);
  store = createPostgresEventStore({ database, logger, pollIntervalMs: 200 });
  // Interleaved appends, so the global log mixes the streams.
  await store.append(
    ORDER,
    [
      newEvent('OrderPlaced', { customer: 'c-1' }),
      newEvent('ItemAdded', { sku: 'sku-1', qty: 1 }),
      newEvent('ItemAdded', { sku: 'sku-2', qty: 2 }),
    ],
    { expectedRevision: 'no_stream' },
  );
  await store.append(INVOICE, [newEvent('InvoiceIssued', { amount: 30 })], {
    expectedRevision: 'no_stream',
  });
  await store.append(
    ORDER,
    [newEvent('ItemAdded', { sku: 'sku-3', qty: 3 }), newEvent('OrderConfirmed', { note: 'ok' })],
    { expectedRevision: 2n },
  );
  await store.append(AUDIT, [newEvent('AuditNoted', { by: 'ops' })], {
    expectedRevision: 'no_stream',
  });
  await store.append(INVOICE, [newEvent('InvoicePaid', { amount: 30 })], {
    expectedRevision: 0n,
  });
  env = cliEnv({ DATABASE_URL: throwaway.url });
});

afterAll(async () => {
  await store.close();
  await database.close();
  await throwaway.drop();
});

describe('cogitave events read', () => {
  it('given a stream of five events, when read as text, then stdout has one line per event, oldest first, and stderr stays empty', async () => {
    const recorded = await store.readStream(ORDER);

    const result = await runCli(['events', 'read', ORDER], env);

    expectExit(result, 0);
    expect(lines(result.stdout)).toEqual(
      recorded.map(
        (e) =>
          `${e.position}  ${ORDER}@${e.revision}  ${e.metadata.at}  ${e.type}  actor=agent:cli-test  ${JSON.stringify(e.data)}`,
      ),
    );
    expect(lines(result.stdout)).toHaveLength(5);
    expect(result.stderr).toBe('');
  });

  it('given a stream, when read with --json, then each line is the recorded event with ids, revisions, order and an intact hash chain', async () => {
    const recorded = await store.readStream(ORDER);

    const result = await runCli(['events', 'read', ORDER, '--json'], env);

    expectExit(result, 0);
    const printed = jsonLines(result.stdout);
    expect(printed).toEqual(recorded.map(asJson));
    expect(printed.map((e) => e.revision)).toEqual(['0', '1', '2', '3', '4']);
    expect(printed.map((e) => e.type)).toEqual([
      'OrderPlaced',
      'ItemAdded',
      'ItemAdded',
      'ItemAdded',
      'OrderConfirmed',
    ]);
    const positions = printed.map((e) => e.position);
    expect([...positions].sort(comparePositions)).toEqual(positions);
    expect(findChainBreak(printed.map((e) => ({ ...e, revision: BigInt(e.revision) })))).toBeNull();
  });

  it('given a stream, when read with --backwards --limit 2, then the two newest events print newest first', async () => {
    const recorded = await store.readStream(ORDER);

    const result = await runCli(
      ['events', 'read', ORDER, '--backwards', '--limit', '2', '--json'],
      env,
    );

    expectExit(result, 0);
    expect(jsonLines(result.stdout).map((e) => [e.revision, e.id])).toEqual([
      ['4', recorded[4]!.id],
      ['3', recorded[3]!.id],
    ]);
  });

  it('given a stream, when read with --from 3, then the events from revision 3 on print (inclusive)', async () => {
    const recorded = await store.readStream(ORDER);

    const result = await runCli(['events', 'read', ORDER, '--from', '3', '--json'], env);

    expectExit(result, 0);
    expect(jsonLines(result.stdout).map((e) => e.id)).toEqual([recorded[3]!.id, recorded[4]!.id]);
  });

  it('given a stream with no events, when read, then stdout is empty, stderr says so and the exit code is 0', async () => {
    const result = await runCli(['events', 'read', `nothing-here-${tag}`], env);

    expectExit(result, 0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`stream "nothing-here-${tag}" has no events\n`);
  });
});

describe('cogitave events tail', () => {
  let running: RunningCli | undefined;
  afterEach(async () => {
    await stopCli(running);
    running = undefined;
  });

  it('given events in several streams, when tailed --from-start --no-follow with two stream prefixes, then exactly the matching events print in log order and it exits 0', async () => {
    const expected = (await store.readAll({ filter: { streamPrefixes: [INVOICE, AUDIT] } })).map(
      asJson,
    );

    const result = await runCli(
      [
        'events',
        'tail',
        '--from-start',
        '--no-follow',
        '--stream-prefix',
        INVOICE,
        AUDIT,
        '--json',
      ],
      env,
    );

    expectExit(result, 0);
    const printed = jsonLines(result.stdout);
    expect(printed).toEqual(expected);
    expect(printed.map((e) => `${e.streamId}@${e.revision}`)).toEqual([
      `${INVOICE}@0`,
      `${AUDIT}@0`,
      `${INVOICE}@1`,
    ]);
  });

  it('given a position, when tailed --from it with --type ItemAdded --no-follow, then only later ItemAdded events print', async () => {
    const order = await store.readStream(ORDER);

    const result = await runCli(
      [
        'events',
        'tail',
        '--from',
        order[1]!.position,
        '--type',
        'ItemAdded',
        '--no-follow',
        '--json',
      ],
      env,
    );

    expectExit(result, 0);
    expect(jsonLines(result.stdout).map((e) => e.id)).toEqual([order[2]!.id, order[3]!.id]);
  });

  it('given a running tail --limit 2 on a new stream prefix, when events are appended from outside, then it prints the first two as they commit and exits 0', async () => {
    const live = `live-${tag}-1`;
    const since = await serverClock();
    running = spawnCli(
      ['events', 'tail', '--stream-prefix', `live-${tag}-`, '--limit', '2', '--json'],
      env,
    );
    // The CLI starts listening for NOTIFY only once it follows the log: wait for that, so the
    // events below reach it through the subscription, not through its start-up read.
    await waitForListener(running, since);
    const events = [
      newEvent('LiveOne', { n: 1 }),
      newEvent('LiveTwo', { n: 2 }),
      newEvent('LiveThree', { n: 3 }),
    ];

    await store.append(live, [events[0]!], { expectedRevision: 'no_stream' });
    const first = await running.waitForStdoutLines(1, 20_000);
    await store.append(live, [events[1]!], { expectedRevision: 0n });
    await store.append(live, [events[2]!], { expectedRevision: 1n });
    const result = await Promise.race([
      running.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => {
          reject(new Error(`tail did not exit after two events\n${running?.stderr() ?? ''}`));
        }, 20_000),
      ),
    ]);

    expect(first).toHaveLength(1);
    expectExit(result, 0);
    expect(jsonLines(result.stdout).map((e) => [e.id, e.streamId, e.revision])).toEqual([
      [events[0]!.id, live, '0'],
      [events[1]!.id, live, '1'],
    ]);
  });
});

describe('cogitave events with bad input', () => {
  it.each([
    [['nope'], "unknown command 'nope'"],
    [['events', 'read', 'order-1', '--bogus'], "unknown option '--bogus'"],
    [
      ['events', 'read', 'order-1', '--limit', 'abc'],
      "argument 'abc' is invalid. expected a whole number from 1 to 10000",
    ],
    [['events', 'tail', '--from', 'notaposition'], '"notaposition" is not a position'],
    [
      ['events', 'tail', '--from-start', '--from', '0000000000000001-0000000000000001'],
      'cannot be used with option',
    ],
    [
      ['events', 'read', '$all'],
      'stream id: must have no spaces or control characters and not start with "$"',
    ],
  ])(
    'given the arguments %j, when run, then it exits 2 with a message on stderr and nothing on stdout',
    async (args, message) => {
      const result = await runCli(args, env);

      expectExit(result, 2);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    },
  );

  it('given COGITAVE_POLL_INTERVAL_MS=5, when a command runs, then it exits 78 naming the variable and its rule', async () => {
    const result = await runCli(
      ['events', 'read', ORDER],
      cliEnv({ DATABASE_URL: throwaway.url, COGITAVE_POLL_INTERVAL_MS: '5' }),
    );

    expectExit(result, 78);
    expect(result.stderr).toContain(
      'COGITAVE_POLL_INTERVAL_MS: must be a whole number from 10 to 60000 (got 5)',
    );
    expect(result.stdout).toBe('');
  });
});

describe('cogitave events with an unreachable database', () => {
  const PASSWORD = 'pw-never-shown';
  let result: CliResult;
  beforeAll(async () => {
    result = await runCli(
      ['events', 'read', ORDER],
      cliEnv({ DATABASE_URL: `postgres://cogitave:${PASSWORD}@127.0.0.1:1/cogitave` }),
    );
  });

  it('given DATABASE_URL pointing at a closed port, when a command runs, then it fails with a message naming the refused connection and never the password', () => {
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: DATABASE_URL: .*127\.0\.0\.1:1 \(ECONNREFUSED\)/);
    expect(result.stderr).not.toContain(PASSWORD);
  });

  // An outage is UNAVAILABLE (exit 69) in one readable line, never a raw connection stack.
  it('given DATABASE_URL pointing at a closed port, when a command runs, then it exits 69 (UNAVAILABLE) with a readable message and no stack trace', () => {
    expectExit(result, 69);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(lines(result.stderr)).toHaveLength(1);
  });
});

async function serverClock(): Promise<Date> {
  const { rows } = await database.pool.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return rows[0]!.now;
}

/**
 * Polls the server until a LISTEN connection opened after `since` (the CLI's, not one left
 * by an earlier command) shows up in pg_stat_activity.
 */
async function waitForListener(running: RunningCli, since: Date): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) {
      throw new Error(`tail exited early (${running.child.exitCode}):\n${running.stderr()}`);
    }
    const { rows } = await database.pool.query<{ listening: number }>(
      `SELECT count(*)::int AS listening FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN %' AND backend_start > $1`,
      [since],
    );
    if ((rows[0]?.listening ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`tail never started listening:\n${running.stderr()}`);
}
