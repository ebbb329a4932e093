import { createNetworksService } from '../services/networks/service.js';
import { createGraphQueryService } from '../services/graph-query/service.js';
import { createRequestCommandHandlers } from '../services/requests/handlers.js';
import { createRequestsReadService } from '../services/requests/read-service.js';
import { createResourcesReadService } from '../services/resources/read-service.js';
import type { App } from './app.js';
import { watchApprovalMode } from '../services/governance/approval-mode.js';
import { createCatalogReadService } from '../services/catalog/read-service.js';
import { createSearchService, embedderFromConfig } from '../services/search/index.js';
import type { GatewayServices } from '../mcp-gateway/services.js';
import { createReadYourWrites } from '../mcp-gateway/read-your-writes.js';

export interface ComposedGatewayServices {
  readonly services: GatewayServices;
  /** Stops what the services started (index followers, listeners); the App closes the rest. */
  close(): Promise<void>;
}

/**
 * Builds the services the gateway's tools and resources run on, from the process's App. Each
 * capability adds its service here (and its field to `GatewayServices`).
 */
export interface GatewayServicesOptions {
  /**
   * The catalog start-up ingest of this process, once applied: the search index is first
   * built after it, so a search never answers from a catalog that is still being ingested.
   */
  readonly catalogReady?: Promise<void>;
}

export const createGatewayServices = async (
  app: App,
  options: GatewayServicesOptions = {},
): Promise<ComposedGatewayServices> => {
  const closers: (() => Promise<void>)[] = [];
  // Builds its index in the background; searches wait for it (bounded, then UNAVAILABLE).
  const search = createSearchService({
    db: app.database.pool,
    changes: app.changes,
    embedder: embedderFromConfig(app.config),
    sampleEmbedder: embedderFromConfig(app.config),
    logger: app.logger,
    ...(options.catalogReady ? { buildAfter: options.catalogReady } : {}),
  });
  closers.push(() => search.close());
  // What agents are told of approvals follows the log, not this process's configuration.
  const approvals = await watchApprovalMode(app.eventStore, (error: unknown) => {
    app.logger.error({ err: error }, 'following the approval mode stopped');
  });
  closers.push(() => approvals.close());
  const services: GatewayServices = {
    changes: app.changes,
    requests: createRequestCommandHandlers({
      eventStore: app.eventStore,
      principals: app.governance.principals,
    }),
    governance: app.governance,
    requestsRead: createRequestsReadService({
      db: app.database.pool,
      eventStore: app.eventStore,
      changes: app.changes,
    }),
    resources: createResourcesReadService({ db: app.database.pool }),
    search,
    catalog: createCatalogReadService({ db: app.database.pool }),
    graphQuery: createGraphQueryService({
      pool: app.database.pool,
      timeoutMs: app.config.graphQueryTimeoutMs,
    }),
    networks: createNetworksService({
      eventStore: app.eventStore,
      db: app.database.pool,
      changes: app.changes,
    }),
    approvals: {
      current: () => {
        const recorded = approvals.current();
        return recorded?.mode === 'github'
          ? {
              kind: 'github',
              repository: recorded.repository ?? app.github?.settings.repository ?? 'GitHub',
            }
          : { kind: 'local' };
      },
    },
    readYourWrites: createReadYourWrites({
      waitForPosition: (projection, position, options) =>
        app.changes.waitForPosition(projection, position, options),
    }),
  };
  await Promise.resolve();
  return {
    services,
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
};
