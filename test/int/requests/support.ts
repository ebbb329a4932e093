import { randomUUID } from 'node:crypto';
import type { IntakeForm } from '../../../lifecycle/intake-form.js';
import { commandEventId } from '../../../services/commands/event-ids.js';
import { eventMetadata, type CommandMetadata } from '../../../services/commands/metadata.js';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../../services/event-store/postgres/adapter.js';
import type { EventStore, EventToAppend } from '../../../services/event-store/types.js';
import type { RequestCommandHandlers } from '../../../services/requests/commands.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import { formatRequestId, REQUEST_ID_ALLOCATED } from '../../../services/requests/request-ids.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase } from '../../support/postgres.js';

/** Givens shared by the request handler specs on Postgres. */

export const form: IntakeForm = {
  title: 'Export the audit log as CSV',
  problem: 'Auditors cannot export the audit log, so they copy rows by hand every month.',
  product: 'cogitave-core',
  requester: 'carol',
  acceptanceCriteria: ['The export contains every audit event of the chosen month'],
  links: [],
  priority: 'medium',
};

/** Each test allocates in its own year, so per-year counters are exact within a test. */
export const meta = (year: number, actor = 'agent:alice'): CommandMetadata => ({
  commandId: randomUUID(),
  actor,
  at: `${year}-11-30T08:00:00.000Z`,
});

/**
 * The RequestIdAllocated events one append of `commands` takes from sequence `first` on, as
 * a maker writes them (what it leaves behind when it dies before completing them).
 */
export const allocatedEvents = (
  year: number,
  first: number,
  commands: readonly CommandMetadata[],
): EventToAppend[] =>
  commands.map((command, index) => ({
    id: commandEventId(command.commandId, 'allocate'),
    type: REQUEST_ID_ALLOCATED,
    data: {
      requestId: formatRequestId(year, first + index),
      year,
      sequence: first + index,
      commandId: command.commandId,
      payload: { intake: form, meta: command },
      batchFirst: first,
    },
    metadata: eventMetadata(command),
  }));

/** One process's writing side: its own pool, event store and request handlers. */
export interface Writer {
  readonly database: Database;
  readonly store: PostgresEventStore;
  readonly handlers: RequestCommandHandlers;
}

/**
 * Two writers that share only a throwaway database, as two gateway processes do; `storeFor`
 * turns each writer's store into the one its handlers use (default: as it is).
 */
export const openTwoWriters = async (
  label: string,
  storeFor: (store: PostgresEventStore) => EventStore = (store) => store,
): Promise<{ a: Writer; b: Writer; close: () => Promise<void> }> => {
  const logger = createLogger('silent');
  const throwaway = await createThrowawayDatabase(label);
  const openWriter = async (): Promise<Writer> => {
    const database = await openDatabase({
      databaseUrl: throwaway.url,
      dataDir: '',
      poolSize: 10,
      logger,
    });
    const store = createPostgresEventStore({ database, logger, pollIntervalMs: 200 });
    const handlers = createRequestCommandHandlers({ eventStore: storeFor(store) });
    return { database, store, handlers };
  };
  const a = await openWriter();
  await migrate(a.database.pool, [eventStoreMigrations], logger);
  const b = await openWriter();
  return {
    a,
    b,
    close: async () => {
      for (const writer of [a, b]) {
        await writer.store.close();
        await writer.database.close();
      }
      await throwaway.drop();
    },
  };
};
