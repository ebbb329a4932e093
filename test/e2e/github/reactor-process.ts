/**
 * The GitHub reactor alone in a process, for the crash test: `node --import tsx` this file with
 * DATABASE_URL and GITHUB_API_URL set. It is composed like the product's (server Postgres,
 * the real handlers, the advisory-lock leadership) with test timings, logs JSON on stderr,
 * and stops on SIGTERM. SIGKILL is what the test sends.
 */
import { openDatabase } from '../../../services/database/database.js';
import { migrate } from '../../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
} from '../../../services/event-store/postgres/adapter.js';
import { githubReactorMigrations } from '../../../services/github/checkpoint.js';
import { createGitHubClient } from '../../../services/github/client.js';
import { createAdvisoryLeadership } from '../../../services/database/leadership.js';
import { createGitHubOperations } from '../../../services/github/operations.js';
import { createGitHubReactor } from '../../../services/github/reactor.js';
import { createRequestCommandHandlers } from '../../../services/requests/handlers.js';
import { Secret } from '../../../services/runtime/config.js';
import { createLogger } from '../../../services/runtime/logger.js';

const databaseUrl = process.env.DATABASE_URL;
const apiUrl = process.env.GITHUB_API_URL;
const repository = process.env.GITHUB_REPOSITORY ?? 'acme/widgets';
if (!databaseUrl || !apiUrl) {
  process.stderr.write('reactor-process: DATABASE_URL and GITHUB_API_URL are required\n');
  process.exit(2);
}

const logger = createLogger('info', 'reactor-process');
const database = await openDatabase({ databaseUrl, dataDir: '', poolSize: 4, logger });
await migrate(database.pool, [eventStoreMigrations, githubReactorMigrations], logger);
const eventStore = createPostgresEventStore({ database, logger, pollIntervalMs: 50 });
const client = createGitHubClient({
  apiUrl,
  auth: { kind: 'token', token: new Secret('ghp_crash_test') },
  logger,
  timeScaleMs: 1,
  spaceWrites: false,
  requestTimeoutMs: 5000,
});
const reactor = createGitHubReactor({
  eventStore,
  pool: database.pool,
  github: createGitHubOperations({ client, repository, logger }),
  handlers: createRequestCommandHandlers({ eventStore }),
  logger,
  leadership: createAdvisoryLeadership({
    connectionString: databaseUrl,
    key: 0x636f_6769_7461_6768n,
    logger,
    retryMs: 100,
  }),
  retry: { initialDelayMs: 20, maxDelayMs: 200 },
});
reactor.start();

// The test follows progress through these lines.
const report = setInterval(() => {
  logger.info({ status: reactor.status() }, 'reactor status');
}, 100);

process.once('SIGTERM', () => {
  clearInterval(report);
  void reactor
    .stop()
    .then(() => eventStore.close())
    .then(() => database.close())
    .then(() => process.exit(0));
});
