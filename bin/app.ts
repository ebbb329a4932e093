import {
  createChangeFeed,
  createProjectionRunner,
  projectionMigrationSets,
  type ChangeFeed,
  type ProjectionRunner,
} from '../projections/index.js';
import { PROJECTIONS } from './read-models.js';
import { auditMigrations } from '../services/audit/seal.js';
import { createAuditService, type AuditService } from '../services/audit/service.js';
import { auditSettingsFromConfig, type AuditSettings } from '../services/audit/settings.js';
import { openDatabase, type Database } from '../services/database/database.js';
import { describeConnectionFailure } from '../services/database/connection-check.js';
import { migrate } from '../services/database/migrate.js';
import { mapDatabaseError } from '../services/database/transient.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
} from '../services/event-store/postgres/adapter.js';
import type { EventStore } from '../services/event-store/types.js';
import { githubReactorMigrations } from '../services/github/checkpoint.js';
import { githubDigestWitness } from '../services/github/digest-witness.js';
import {
  createGitHubIntegration,
  githubSettingsFromConfig,
  type GitHubIntegration,
} from '../services/github/index.js';
import { createPrincipalDirectory } from '../services/principals/principals.js';
import { createGovernanceService, type GovernanceService } from '../services/governance/service.js';
import { createRequestCommandHandlers } from '../services/requests/handlers.js';
import { activityAppendObserver } from '../services/activity/log.js';
import { observeAppends } from '../services/event-store/observed.js';
import type { Config } from '../services/runtime/config.js';
import type { Logger } from '../services/runtime/logger.js';

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
   * Approval mode, principals and every decision on a proposal (webhook, CLI, console); its
   * `principals` are the ones any request command handlers of this process must use.
   */
  readonly governance: GovernanceService;
  /**
   * GitHub mode: the reactor (not started; `serve` starts it) and the webhook receiver.
   * Undefined in local approval mode (no GitHub credentials configured).
   */
  readonly github: GitHubIntegration | undefined;
  /** Seal, digests and verification of the log (`serve` publishes digests periodically). */
  readonly audit: AuditService;
  readonly auditSettings: AuditSettings;
  /** The read models' runner (not started; `serve` starts it, one-shot commands do not). */
  readonly projections: ProjectionRunner;
  /**
   * Committed read-model changes. On server Postgres its LISTEN connection opens on first use
   * (`onChange`, `waitForPosition`, `ready`), so one-shot commands open none.
   */
  readonly changes: ChangeFeed;
  /** Stops the runner, then closes the change feed, the event store and the database. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** The embedded data folder must be this process's alone (serve); see openDatabase. */
  readonly mustOwn?: boolean;
  /** What this process runs, as other processes sharing the data folder are told. */
  readonly command?: string;
}

export const createApp = async (
  config: Config,
  logger: Logger,
  options: AppOptions = {},
): Promise<App> => {
  // Keys are read before anything opens: a bad one is a configuration error.
  const auditSettings = auditSettingsFromConfig(config);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    logger,
    ...options,
  });
  try {
    // Every command migrates the read models too, so `cogitave migrate` creates everything.
    await migrate(
      database.pool,
      [
        eventStoreMigrations,
        auditMigrations,
        githubReactorMigrations,
        ...projectionMigrationSets(PROJECTIONS),
      ],
      logger,
    ).catch((error: unknown) => {
      // The first query opens the first connection: a missing database or role is a setting.
      throw (
        (config.databaseUrl === undefined
          ? undefined
          : describeConnectionFailure(error, config.databaseUrl)) ?? mapDatabaseError(error)
      );
    });
    const store = config.eventStoreUrl
      ? // Loaded on demand: the gRPC client is heavy and only production topologies use it.
        (await import('../services/event-store/esdb/adapter.js')).createEsdbEventStore({
          connectionString: config.eventStoreUrl,
          logger,
        })
      : createPostgresEventStore({ database, logger, pollIntervalMs: config.pollIntervalMs });
    // Proposals and decisions reach the activity log from the process that appends them; the
    // serving process (`mustOwn`) decides locally only through its console.
    const eventStore = observeAppends(
      store,
      activityAppendObserver(logger, options.mustOwn === true ? 'console' : 'cli'),
    );
    const githubSettings = githubSettingsFromConfig(config);
    const principals = createPrincipalDirectory(config.principals);
    const handlers = createRequestCommandHandlers({ eventStore, principals });
    const governance = createGovernanceService({
      eventStore,
      handlers,
      principals,
      configuredMode: githubSettings ? 'github' : 'local',
      repository: githubSettings?.repository ?? null,
    });
    const github = githubSettings
      ? createGitHubIntegration({
          settings: githubSettings,
          database,
          eventStore,
          handlers,
          governance,
          logger,
        })
      : undefined;
    const audit = createAuditService({
      database,
      eventStore,
      logger,
      digestDir: auditSettings.digestDir,
      signingKey: auditSettings.signingKey,
      trustedKey: auditSettings.trustedKey,
      witnesses: github ? [githubDigestWitness(github.operations)] : [],
    });
    const changes = lazyChangeFeed(() => createChangeFeed({ database, logger }));
    const projections = createProjectionRunner({
      database,
      eventStore,
      logger,
      projections: PROJECTIONS,
      changeSink: changes,
    });
    return {
      config,
      logger,
      database,
      eventStore,
      governance,
      github,
      audit,
      auditSettings,
      projections,
      changes,
      close: async () => {
        // The reactor (a writer) first, then the read side; each before what it uses.
        await github?.reactor.stop();
        await projections.stop();
        await changes.close();
        await eventStore.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
};

/**
 * Creates the feed on first use. Before that nobody listens, so a notice published in process
 * (the runner's sink on PGlite) has no one to reach and is dropped.
 */
const lazyChangeFeed = (create: () => ChangeFeed): ChangeFeed => {
  let feed: ChangeFeed | undefined;
  let closed = false;
  const open = (): ChangeFeed => (feed ??= create());
  return {
    onChange: (listener) => (closed ? () => undefined : open().onChange(listener)),
    waitForPosition: (projection, position, options) =>
      closed ? Promise.resolve(false) : open().waitForPosition(projection, position, options),
    ready: () => (closed ? Promise.resolve() : open().ready()),
    publishLocal: (notice) => {
      feed?.publishLocal(notice);
    },
    close: async () => {
      closed = true;
      await feed?.close();
    },
  };
};
