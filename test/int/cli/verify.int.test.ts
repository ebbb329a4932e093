import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDigest, rawPublicKey } from '../../../services/audit/digest.js';
import type { ExportedEvent } from '../../../services/audit/export.js';
import { auditMigrations } from '../../../services/audit/seal.js';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { EventToAppend } from '../../../services/event-store/types.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { cliEnv, repoRoot, runCli } from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

// `cogitave digest`, `verify` and `events export` as an operator and an auditor run them:
// against the real database, after someone edited or deleted stored events behind the store's
// back. Tests run in order: each tampers a little more.
const logger = createLogger('silent');
const VERIFIER = join(repoRoot, 'test/support/independent-verifier/verify_export.py');
let throwaway: ThrowawayDatabase;
let database: Database;
let store: PostgresEventStore;
let env: NodeJS.ProcessEnv;
let folder: string;
let publicKey: string;

const event = (note: string): EventToAppend => ({
  id: randomUUID(),
  type: 'Noted',
  data: { note, amount: 1e21, tiny: 1.5e-7, text: 'émoji 😀 "quoted" \\ \n' },
  metadata: {
    actor: 'agent:audit',
    correlationId: randomUUID(),
    causationId: randomUUID(),
    at: new Date().toISOString(),
  },
});

const python = spawnSync('python3', ['--version']).status === 0;

const verifyJson = async (args: readonly string[] = []) => {
  const result = await runCli(['verify', '--json', ...args], env);
  return {
    code: result.code,
    report: JSON.parse(result.stdout) as {
      ok: boolean;
      events: number;
      problem: { kind: string; streamId: string; revision: number; position: string } | null;
      digest: { events: number; matched: boolean; signature: { status: string } } | null;
    },
  };
};

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('cli_verify');
  database = await openDatabase({ databaseUrl: throwaway.url, dataDir: '', poolSize: 4, logger });
  await migrate(database.pool, [eventStoreMigrations, auditMigrations], logger);
  store = createPostgresEventStore({ database, logger });
  for (const stream of ['ledger-a', 'ledger-b', 'ledger-c']) {
    await store.append(stream, [event('first'), event('second')], {
      expectedRevision: 'no_stream',
    });
    await store.append(stream, [event('third')], { expectedRevision: 'any' });
  }
  folder = mkdtempSync(join(tmpdir(), 'cogitave-cli-verify-'));
  const keys = generateKeyPairSync('ed25519');
  writeFileSync(
    join(folder, 'signing-key.pem'),
    keys.privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
  env = cliEnv({
    DATABASE_URL: throwaway.url,
    COGITAVE_DIGEST_DIR: join(folder, 'digests'),
    COGITAVE_DIGEST_SIGNING_KEY_FILE: join(folder, 'signing-key.pem'),
  });
  publicKey = (await runCli(['digest', '--public-key'], env)).stdout.trim();
});

afterAll(async () => {
  await store.close();
  await database.close();
  await throwaway.drop();
  rmSync(folder, { recursive: true, force: true });
});

describe('cogitave digest, verify and events export', () => {
  it('given an untouched log and no digest yet, when verified, then it reports every event and stream, says what it cannot see, and exits 0', async () => {
    const result = await runCli(['verify'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('verified 9 events in 3 streams');
    expect(result.stdout).toContain('note: no digest was given or published');
  });

  it('given the log, when a digest is published, then it is one signed line of JSON in the folder and verify checks against it by default', async () => {
    const published = await runCli(['digest', '--publish'], env);
    expect(published.code, published.stderr).toBe(0);
    const digest = parseDigest(published.stdout.trim());
    expect(digest).toMatchObject({ events: 9, last: { streamId: 'ledger-c', revision: 2 } });
    expect(digest.publicKey).toBe(publicKey);
    expect(readFileSync(join(folder, 'digests', 'latest.json'), 'utf8').trim()).toBe(
      published.stdout.trim(),
    );
    const { code, report } = await verifyJson();
    expect(code).toBe(0);
    expect(report.digest).toMatchObject({
      events: 9,
      matched: true,
      signature: { status: 'valid' },
    });
    const text = await runCli(['verify'], env);
    expect(text.stdout).toContain('verified 9 events in 3 streams (9 compared with the seal)');
    expect(text.stdout).toContain('signature valid (configured key); the log matches it');
  });

  it('given an export, when checked by an independent implementation, then it holds; one byte changed in it, it names the line', async (context) => {
    if (!python) {
      context.skip(
        'python3 is not on the PATH: install it (apt-get install python3) to run the independent verifier',
      );
    }
    const exported = await runCli(['events', 'export', '--out', join(folder, 'log.jsonl')], env);
    expect(exported.code, exported.stderr).toBe(0);
    const latest = join(folder, 'digests', 'latest.json');
    const ok = execFileSync('python3', [VERIFIER, join(folder, 'log.jsonl'), latest, publicKey], {
      encoding: 'utf8',
    });
    expect(ok).toContain('OK: 9 events, 3 streams; digest of 9 events holds (signature valid)');

    const lines = readFileSync(join(folder, 'log.jsonl'), 'utf8').trim().split('\n');
    const fourth = JSON.parse(lines[4] ?? '') as ExportedEvent;
    lines[4] = JSON.stringify({
      ...fourth,
      content: fourth.content.replace('"note":"', '"note":"X'),
    });
    writeFileSync(join(folder, 'tampered.jsonl'), `${lines.join('\n')}\n`);
    const tampered = spawnSync('python3', [VERIFIER, join(folder, 'tampered.jsonl'), latest], {
      encoding: 'utf8',
    });
    expect(tampered.status).toBe(1);
    expect(tampered.stdout).toContain(
      `line 5 (stream ${fourth.streamId} revision ${fourth.revision}): the content does not hash to its hash`,
    );
    const otherKey = rawPublicKey(generateKeyPairSync('ed25519').publicKey);
    const other = spawnSync('python3', [VERIFIER, join(folder, 'log.jsonl'), latest, otherKey], {
      encoding: 'utf8',
    });
    expect(other.status).toBe(1);
    expect(other.stdout).toContain('signed with another key');
  });

  it('given one byte of one stored event changed, when verified, then it names that stream, revision and position and exits 1', async () => {
    const [target] = await store.readStream('ledger-b', { fromRevision: 1n, maxCount: 1 });
    // "second" → "sEcond": one byte, straight in the table.
    await database.pool.query(
      `UPDATE event_store.events SET content = replace(content, '"second"', '"sEcond"') WHERE event_id = $1`,
      [target!.id],
    );
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    expect(report.problem).toMatchObject({
      kind: 'altered',
      streamId: 'ledger-b',
      revision: 1,
      position: target!.position,
    });
    const text = await runCli(['verify'], env);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `ALTERED: stream ledger-b revision 1 (position ${target!.position})`,
    );
    await database.pool.query(
      `UPDATE event_store.events SET content = replace(content, '"sEcond"', '"second"') WHERE event_id = $1`,
      [target!.id],
    );
  });

  it('given the newest events of a stream deleted (an approval removed), when verified, then the first is named and it exits 1; without the digest, the seal still names it', async () => {
    const [removed] = await store.readStream('ledger-a', { fromRevision: 2n, maxCount: 1 });
    await database.pool.query(
      "DELETE FROM event_store.events WHERE stream_id = 'ledger-a' AND stream_revision >= 2",
    );
    const { code, report } = await verifyJson();
    expect(code).toBe(1);
    expect(report.problem).toMatchObject({
      kind: 'missing',
      streamId: 'ledger-a',
      revision: 2,
      position: removed!.position,
    });
    expect((await verifyJson(['--no-digest'])).report.problem?.kind).toBe('missing');
  });

  it('given a digest passed on the command line or as a file, when verified, then that one is used; a bad one is a usage error', async () => {
    const digestText = readFileSync(join(folder, 'digests', 'latest.json'), 'utf8').trim();
    const given = await verifyJson(['--digest', digestText]);
    expect(given.report.digest?.events).toBe(9);
    const fromFile = await verifyJson(['--digest', join(folder, 'digests', 'digests.jsonl')]);
    expect(fromFile.report.digest?.events).toBe(9);
    const bad = await runCli(['verify', '--digest', '{"format":"x"}'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a cogitave-digest/1 digest');
    const missing = await runCli(['verify', '--digest', join(folder, 'nope.json')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('neither a digest (JSON) nor a readable file');
  });
});
