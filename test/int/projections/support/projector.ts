/**
 * A projector process for the crash and fail-over tests: runs the requests projection against
 * PROJECTOR_DATABASE_URL and reports on stdout, one JSON object a line:
 *   {"batch":{"events":500,"position":"…","applied":1500,"ms":41.2}}   after each batch
 *   {"status":{"state":"running","leader":true,…}}            on each state change
 * SIGTERM stops the runner gracefully and exits 0. Migrations are the test's job.
 *
 *   node --import tsx test/int/projections/support/projector.ts
 */
import { openDatabase } from '../../../../services/database/database.js';
import { createPostgresEventStore } from '../../../../services/event-store/postgres/adapter.js';
import { createLogger } from '../../../../services/runtime/logger.js';
import { requestsProjection } from '../../../../services/requests/read-model/projection.js';
import { createProjectionRunner } from '../../../../projections/runner.js';

const url = process.env.PROJECTOR_DATABASE_URL;
if (!url) {
  process.stderr.write('PROJECTOR_DATABASE_URL is required\n');
  process.exit(2);
}
const logger = createLogger(
  process.env.PROJECTOR_LOG_LEVEL === 'info' ? 'info' : 'warn',
  'projector',
);
const database = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 4, logger });
const store = createPostgresEventStore({ database, logger, pollIntervalMs: 100 });
let applied = 0;
const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};
const runner = createProjectionRunner({
  database,
  eventStore: store,
  logger,
  projections: [requestsProjection],
  batchSize: Number(process.env.PROJECTOR_BATCH_SIZE ?? '500'),
  lockPollIntervalMs: 100,
  lockHeartbeatMs: 1000,
  lagProbeIntervalMs: 0,
  onBatch: (batch) => {
    applied += batch.events;
    print({
      batch: { events: batch.events, position: batch.position, applied, ms: batch.seconds * 1000 },
    });
  },
  onStatus: (status) => {
    print({ status });
  },
});
runner.start();

process.once('SIGTERM', () => {
  void (async () => {
    await runner.stop();
    await store.close();
    await database.close();
    print({ exit: 'graceful' });
    process.exit(0);
  })();
});
