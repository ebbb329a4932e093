import type { ChangeFeed } from '../projections/index.js';
import type { CatalogReadService } from '../services/catalog/read-service.js';
import type { GovernanceService } from '../services/governance/service.js';
import type { GraphQueryService } from '../services/graph-query/service.js';
import type { NetworksService } from '../services/networks/service.js';
import type { RequestCommandHandlers } from '../services/requests/commands.js';
import type { RequestsReadService } from '../services/requests/read-service.js';
import type { ResourcesReadService } from '../services/resources/read-service.js';
import type { SearchService } from '../services/search/service.js';
import type { ReadYourWrites } from './read-your-writes.js';

/** How proposals are decided in this deployment, so agents are told only what is true. */
export type ApprovalMode =
  { readonly kind: 'github'; readonly repository: string } | { readonly kind: 'local' };

/**
 * What tool handlers and resources run on: capability services only, never a database pool or
 * the event store. Every read method takes the caller's `ReadScope` (the `scope` of a tool's
 * context). Built once by the composition root and passed to the server factory; every
 * capability adds its service here.
 */
export interface GatewayServices {
  /** Change notifications (cross-process): drives resources/updated and list_changed. */
  readonly changes: Pick<ChangeFeed, 'onChange'>;
  /** The Request commands (propose-only: intake, stage proposals). */
  readonly requests: RequestCommandHandlers;
  readonly requestsRead: RequestsReadService;
  /** Decisions of people (the console): the deployment's approval mode, principals, four eyes. */
  readonly governance: Pick<
    GovernanceService,
    'decideLocally' | 'decideRequestLocally' | 'recordedMode'
  >;
  readonly resources: ResourcesReadService;
  readonly search: SearchService;
  readonly catalog: CatalogReadService;
  readonly graphQuery: GraphQueryService;
  readonly networks: NetworksService;
  /** Where each caller's writes are, so its next read waits for them (see read-your-writes.ts). */
  readonly readYourWrites: ReadYourWrites;
  /**
   * GitHub (pull requests and issues) or local (`cogitave proposals`, the console): what agents
   * are told, as the deployment's log records it now (not this process's configuration).
   */
  readonly approvals: { current(): ApprovalMode };
}
