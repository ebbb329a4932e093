import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditMigrations } from '../../../services/audit/seal.js';
import { createAuditService, type AuditService } from '../../../services/audit/service.js';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { EventToAppend } from '../../../services/event-store/types.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase } from '../../support/postgres.js';

export const logger = createLogger('silent');

export const event = (n: number, type = 'ThingChanged'): EventToAppend => ({
  id: randomUUID(),
  type,
  data: { n, note: `event ${n}` },
  metadata: {
    actor: 'agent:audit-test',
    correlationId: `corr-${n}`,
    causationId: `cause-${n}`,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  },
});

export interface AuditBed {
  readonly database: Database;
  readonly store: PostgresEventStore;
  readonly audit: AuditService;
  readonly digestDir: string;
  readonly keys: { readonly privateKey: KeyObject; readonly publicKey: KeyObject };
  readonly url: string;
  /** Appends `count` events to each stream, interleaved (one append per event). */
  appendRound(streams: readonly string[], count: number): Promise<void>;
  close(): Promise<void>;
}

/** A fresh server database with the event store and audit schemas, and a signing key. */
export const openAuditBed = async (label: string): Promise<AuditBed> => {
  const throwaway = await createThrowawayDatabase(label);
  const database = await openDatabase({
    databaseUrl: throwaway.url,
    dataDir: '',
    poolSize: 4,
    logger,
  });
  await migrate(database.pool, [eventStoreMigrations, auditMigrations], logger);
  const store = createPostgresEventStore({ database, logger, pollIntervalMs: 100 });
  const digestDir = mkdtempSync(join(tmpdir(), 'cogitave-digests-'));
  const keys = generateKeyPairSync('ed25519');
  const audit = createAuditService({
    database,
    eventStore: store,
    logger,
    digestDir,
    signingKey: keys.privateKey,
  });
  let n = 0;
  return {
    database,
    store,
    audit,
    digestDir,
    keys,
    url: throwaway.url,
    appendRound: async (streams, count) => {
      for (let i = 0; i < count; i += 1) {
        for (const stream of streams) {
          n += 1;
          await store.append(stream, [event(n, i === 0 ? 'ThingMade' : 'ThingChanged')], {
            expectedRevision: 'any',
          });
        }
      }
    },
    close: async () => {
      await store.close();
      await database.close();
      await throwaway.drop();
      rmSync(digestDir, { recursive: true, force: true });
    },
  };
};

/** Lets the test edit the seal, as someone dropping its guard would. */
export const unguardSeal = async (database: Database): Promise<void> => {
  await database.pool.query('ALTER TABLE audit.log_links DISABLE TRIGGER USER');
};
