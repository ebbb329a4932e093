import { openDatabase, type Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { mapDatabaseError } from '../database/transient.js';
import { createPostgresEventStore, eventStoreMigrations } from '../event-store/postgres/adapter.js';
import type { EventStore } from '../event-store/types.js';
import { githubReactorMigrations } from '../github/checkpoint.js';
import {
  createGitHubIntegration,
  githubSettingsFromConfig,
  type GitHubIntegration,
} from '../github/index.js';
import { createRequestCommandHandlers } from '../requests/handlers.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';

/**
 * The composition root: builds the database, runs migrations and picks the event store
 * adapter from the configuration. Each process creates exactly one and passes it down.
 */
export interface App {
  readonly config: Config;
  readonly logger: Logger;
  readonly database: Database;
  readonly eventStore: EventStore;
  /**
   * GitHub mode: the reactor (not started; `serve` starts it) and the webhook receiver.
   * Undefined in local approval mode (no GitHub credentials configured).
   */
  readonly github: GitHubIntegration | undefined;
  close(): Promise<void>;
}

export const createApp = async (config: Config, logger: Logger): Promise<App> => {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    logger,
  });
  try {
    await migrate(database.pool, [eventStoreMigrations, githubReactorMigrations], logger).catch(
      (error: unknown) => {
        throw mapDatabaseError(error);
      },
    );
    const eventStore = config.eventStoreUrl
      ? // Loaded on demand: the gRPC client is heavy and only production topologies use it.
        (await import('../event-store/esdb/adapter.js')).createEsdbEventStore({
          connectionString: config.eventStoreUrl,
          logger,
        })
      : createPostgresEventStore({ database, logger, pollIntervalMs: config.pollIntervalMs });
    const githubSettings = githubSettingsFromConfig(config);
    const github = githubSettings
      ? createGitHubIntegration({
          settings: githubSettings,
          database,
          eventStore,
          handlers: createRequestCommandHandlers({ eventStore }),
          logger,
        })
      : undefined;
    return {
      config,
      logger,
      database,
      eventStore,
      github,
      close: async () => {
        await github?.reactor.stop();
        await eventStore.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
};
