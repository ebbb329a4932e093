import type { ChangeFeed } from '../projections/index.js';
import type { CatalogReadService } from '../services/catalog/read-service.js';
import type { Database } from '../services/database/database.js';
import type { EventStore } from '../services/event-store/types.js';
import type { GraphQueryService } from '../services/graph-query/service.js';
import type { NetworksService } from '../services/networks/service.js';
import type { RequestCommandHandlers } from '../services/requests/commands.js';
import type { SearchService } from '../services/search/service.js';

/**
 * What tool handlers and resource readers run on. Built once by the composition root and
 * passed to the server factory; every capability adds its service here.
 */
export interface GatewayServices {
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly changes: ChangeFeed;
  readonly requests: RequestCommandHandlers;
  readonly search: SearchService;
  readonly catalog: CatalogReadService;
  readonly graphQuery: GraphQueryService;
  readonly networks: NetworksService;
}
