import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { EventToAppend } from '../../../services/event-store/types.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { cliEnv, runCli } from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

// `cogitave verify` as an auditor runs it: against the real database, after someone edited
// one stored event behind the store's back.
const logger = createLogger('silent');
let throwaway: ThrowawayDatabase;
let database: Database;
let store: PostgresEventStore;
let env: NodeJS.ProcessEnv;

const event = (note: string): EventToAppend => ({
  id: randomUUID(),
  type: 'Noted',
  data: { note },
  metadata: {
    actor: 'agent:audit',
    correlationId: randomUUID(),
    causationId: randomUUID(),
    at: new Date().toISOString(),
  },
});

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('cli_verify');
  database = await openDatabase({ databaseUrl: throwaway.url, dataDir: '', poolSize: 4, logger });
  await migrate(database.pool, [eventStoreMigrations], logger);
  store = createPostgresEventStore({ database, logger });
  for (const stream of ['ledger-a', 'ledger-b', 'ledger-c']) {
    await store.append(stream, [event('first'), event('second')], {
      expectedRevision: 'no_stream',
    });
    await store.append(stream, [event('third')], { expectedRevision: 'any' });
  }
  env = cliEnv({ DATABASE_URL: throwaway.url });
});

afterAll(async () => {
  await store.close();
  await database.close();
  await throwaway.drop();
});

describe('cogitave verify', () => {
  it('given an untouched log, when verified, then it reports every event and stream and exits 0', async () => {
    const result = await runCli(['verify'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('verified 9 events in 3 streams');
  });

  it('given one byte of one stored event changed, when verified, then it names that stream, revision and position and exits 1', async () => {
    const [target] = await store.readStream('ledger-b', { fromRevision: 1n, maxCount: 1 });
    // "second" → "sEcond": one byte, straight in the table.
    await database.pool.query(
      `UPDATE event_store.events SET content = replace(content, '"second"', '"sEcond"') WHERE event_id = $1`,
      [target!.id],
    );
    const result = await runCli(['verify', '--json'], env);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      broken: { streamId: string; revision: string; position: string; reason: string };
    };
    expect(report.broken).toMatchObject({
      streamId: 'ledger-b',
      revision: '1',
      position: target!.position,
    });
    expect(report.broken.reason).toContain('altered');

    const text = await runCli(['verify'], env);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `BROKEN: stream ledger-b revision 1 position ${target!.position}`,
    );
  });
});
