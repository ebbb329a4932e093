import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDigest, type Digest } from '../../services/audit/digest.js';
import { openDatabase, type Database } from '../../services/database/database.js';
import {
  createPostgresEventStore,
  type PostgresEventStore,
} from '../../services/event-store/postgres/adapter.js';
import { createLogger } from '../../services/runtime/logger.js';
import { cliEnv, runCli, spawnCli, stopCli, type RunningCli } from '../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';

/**
 * Digest publication by `cogitave serve`: one at start, one whenever the log moved (every
 * COGITAVE_DIGEST_INTERVAL_MS), one at shutdown — and `cogitave verify` then checks against
 * the latest by default, so deleting the newest event after the server stopped is named.
 */
const logger = createLogger('silent');
let throwaway: ThrowawayDatabase;
let database: Database;
let store: PostgresEventStore;
let folder: string;
let env: NodeJS.ProcessEnv;
let served: RunningCli | undefined;

const latest = (): Digest | undefined => {
  const file = join(folder, 'latest.json');
  return existsSync(file) ? parseDigest(readFileSync(file, 'utf8').trim()) : undefined;
};

const until = async (what: string, holds: () => boolean, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const append = async (stream: string, count: number): Promise<void> => {
  for (let i = 0; i < count; i += 1) {
    await store.append(
      stream,
      [
        {
          id: randomUUID(),
          type: 'Noted',
          data: { i },
          metadata: {
            actor: 'agent:e2e',
            correlationId: randomUUID(),
            causationId: randomUUID(),
            at: new Date().toISOString(),
          },
        },
      ],
      { expectedRevision: 'any' },
    );
  }
};

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('e2e_audit');
  folder = mkdtempSync(join(tmpdir(), 'cogitave-e2e-digests-'));
  env = cliEnv({
    DATABASE_URL: throwaway.url,
    COGITAVE_HTTP_PORT: '0',
    COGITAVE_DIGEST_DIR: folder,
    COGITAVE_DIGEST_INTERVAL_MS: '300',
    LOG_LEVEL: 'info',
  });
  served = spawnCli(['serve'], env);
  await served.waitForLog((line) => line.msg === 'cogitave ready', 90_000);
  database = await openDatabase({ databaseUrl: throwaway.url, dataDir: '', poolSize: 2, logger });
  store = createPostgresEventStore({ database, logger });
});

afterAll(async () => {
  await stopCli(served);
  await store.close();
  await database.close();
  await throwaway.drop();
  rmSync(folder, { recursive: true, force: true });
});

describe('digest publication by serve', () => {
  it('given a running server, when the log moves, then a digest follows within the interval, and one more at shutdown', async () => {
    await until('the start-up digest', () => latest() !== undefined);
    const atStart = latest()?.events ?? -1;
    await append('note-a', 4);
    await until('a digest of the new events', () => latest()?.events === atStart + 4);

    await append('note-b', 2);
    const running = served;
    if (!running) throw new Error('serve is not running');
    running.child.kill('SIGTERM');
    const exit = await running.exited;
    served = undefined;
    expect(exit.code).toBe(0);
    expect(latest()?.events).toBe(atStart + 6);
    expect(latest()?.last?.streamId).toBe('note-b');
    const lines = readFileSync(join(folder, 'digests.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('given the server stopped, when the newest event is deleted, then verify (latest digest by default) names it and exits 1', async () => {
    const ok = await runCli(['verify'], env);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    await database.pool.query(
      "DELETE FROM event_store.events WHERE stream_id = 'note-b' AND stream_revision = 1",
    );
    const broken = await runCli(['verify'], env);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('MISSING: the event sealed as');
    expect(broken.stdout).toContain('stream note-b revision 1');
  });
});
