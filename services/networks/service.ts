import { networkStreamId } from './events.js';
import { z } from 'zod';
import type { ChangeFeed } from '../../projections/change-feed.js';
import { NETWORKS_PROJECTION } from './read-model/projection.js';
import {
  getNeighbors,
  getNetwork,
  getNode,
  listNetworks,
  readNetworkResource,
  type NetworkNode,
  type NetworkResource,
} from './read-model/queries.js';
import type { NetworkSummary } from './read-model/state.js';

export type { NetworkSummary };
import type { Queryable } from '../database/queryable.js';
import type { EventStore } from '../event-store/types.js';
import { parseInput } from '../commands/inputs.js';
import type { CommandMetadata } from '../commands/metadata.js';
import { mayReadType, requireType, type ReadScope } from '../access/grants.js';
import { InvalidArgument } from '../runtime/errors.js';
import type { NetworkLimits } from './decide.js';
import { NetworkNotFound, NodeNotFound } from './errors.js';
import {
  createNetworkCommandHandlers,
  type AddEdgeResult,
  type AddEdgesResult,
  type AddNodeResult,
  type AddNodesResult,
  type NetworkCommandHandlers,
  type NetworkWriteResult,
} from './handlers.js';
import {
  networkNameSchema,
  nodeRefInputSchema,
  type AddEdgeInput,
  type AddEdgesInput,
  type AddNodeInput,
  type AddNodesInput,
  type CreateNetworkInput,
} from './inputs.js';

/**
 * Networks as the gateway uses them: commands on the write side (event streams), queries on
 * the read model, and read-your-writes between them. A write returns as soon as it is
 * appended; a read first waits (bounded) until the networks projection has applied the
 * network's latest event, so whoever wrote, the next read sees it. Building a graph is then
 * as fast as appending, and only a read right after a write pays for the projection.
 */

export interface NetworkPage {
  readonly networks: readonly NetworkSummary[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

export interface NetworksService {
  readonly commands: NetworkCommandHandlers;
  createNetwork(input: CreateNetworkInput, meta: CommandMetadata): Promise<NetworkWriteResult>;
  addNode(input: AddNodeInput, meta: CommandMetadata): Promise<AddNodeResult>;
  addEdge(input: AddEdgeInput, meta: CommandMetadata): Promise<AddEdgeResult>;
  addNodes(input: AddNodesInput, meta: CommandMetadata): Promise<AddNodesResult>;
  addEdges(input: AddEdgesInput, meta: CommandMetadata): Promise<AddEdgesResult>;
  /**
   * Reads take the caller's scope (required): networks have no product, so the `network`
   * type decides; without it a read is refused (the grant alone decides that).
   * Throws NetworkNotFound or NodeNotFound.
   */
  getNeighbors(
    scope: ReadScope,
    networkName: string,
    nodeId: string,
  ): Promise<{ readonly nodeId: string; readonly neighbors: readonly string[] }>;
  getNode(scope: ReadScope, networkName: string, nodeId: string): Promise<NetworkNode>;
  getNetwork(scope: ReadScope, networkName: string): Promise<NetworkSummary>;
  listNetworks(
    scope: ReadScope,
    options?: {
      readonly cursor?: string | undefined;
      readonly limit?: number | undefined;
    },
  ): Promise<NetworkPage>;
  /** `cogitave://network/<name>`; undefined when there is no such network, or the scope hides it. */
  readResource(scope: ReadScope, networkName: string): Promise<NetworkResource | undefined>;
}

export interface NetworksServiceDeps {
  readonly eventStore: EventStore;
  /** The read model's database (`database.pool`). */
  readonly db: Queryable;
  readonly changes: Pick<ChangeFeed, 'waitForPosition'>;
  /** How long a read waits for the read model to apply a network's latest event (default 5000 ms). */
  readonly readYourWritesTimeoutMs?: number;
  readonly limits?: NetworkLimits;
  readonly maxAttempts?: number;
}

export const DEFAULT_LIST_LIMIT = 50;
/** The resource type of networks (`cogitave://network/<name>`). */
export const NETWORK_TYPE = 'network';
const WHAT = 'reading networks';
export const MAX_LIST_LIMIT = 200;

const cursorSchema = z.object({ after: networkNameSchema });

export const encodeNetworkCursor = (afterName: string): string =>
  Buffer.from(JSON.stringify({ after: afterName }), 'utf8').toString('base64url');

const decodeCursor = (cursor: string): string => {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return cursorSchema.parse(decoded).after;
  } catch {
    throw new InvalidArgument(
      'cursor is not one network_list returned: pass its next_cursor unchanged, or omit it to start from the first page.',
      { cursor },
    );
  }
};

export const createNetworksService = (deps: NetworksServiceDeps): NetworksService => {
  const { db, changes } = deps;
  const timeoutMs = deps.readYourWritesTimeoutMs ?? 5000;
  const commands = createNetworkCommandHandlers({
    eventStore: deps.eventStore,
    ...(deps.limits ? { limits: deps.limits } : {}),
    ...(deps.maxAttempts === undefined ? {} : { maxAttempts: deps.maxAttempts }),
  });

  // Past the wait the read answers from the read model as it is (it catches up shortly).
  const caughtUp = async (networkName: string): Promise<void> => {
    const [last] = await deps.eventStore.readStream(networkStreamId(networkName), {
      direction: 'backwards',
      maxCount: 1,
    });
    if (last) await changes.waitForPosition(NETWORKS_PROJECTION, last.position, { timeoutMs });
  };
  /** The same for reads across networks: the newest event of any network stream. */
  const allCaughtUp = async (): Promise<void> => {
    const [last] = await deps.eventStore.readAll({
      direction: 'backwards',
      maxCount: 1,
      filter: { streamPrefixes: [networkStreamId('')] },
    });
    if (last) await changes.waitForPosition(NETWORKS_PROJECTION, last.position, { timeoutMs });
  };

  const nodeRef = (networkName: string, nodeId: string) =>
    parseInput(nodeRefInputSchema, { networkName, nodeId }, 'node');

  return {
    commands,
    createNetwork: (input, meta) => commands.createNetwork(input, meta),
    addNode: (input, meta) => commands.addNode(input, meta),
    addEdge: (input, meta) => commands.addEdge(input, meta),
    addNodes: (input, meta) => commands.addNodes(input, meta),
    addEdges: (input, meta) => commands.addEdges(input, meta),

    getNeighbors: async (scope, networkName, nodeId) => {
      requireType(scope, NETWORK_TYPE, WHAT);
      const ref = nodeRef(networkName, nodeId);
      await caughtUp(ref.networkName);
      const lookup = await getNeighbors(db, ref.networkName, ref.nodeId);
      if (lookup.found === 'network_missing') throw new NetworkNotFound(ref.networkName);
      if (lookup.found === 'node_missing') throw new NodeNotFound(ref.networkName, [ref.nodeId]);
      return { nodeId: ref.nodeId, neighbors: lookup.neighbors };
    },

    getNode: async (scope, networkName, nodeId) => {
      requireType(scope, NETWORK_TYPE, WHAT);
      const ref = nodeRef(networkName, nodeId);
      await caughtUp(ref.networkName);
      const node = await getNode(db, ref.networkName, ref.nodeId);
      if (node) return node;
      if (!(await getNetwork(db, ref.networkName))) throw new NetworkNotFound(ref.networkName);
      throw new NodeNotFound(ref.networkName, [ref.nodeId]);
    },

    getNetwork: async (scope, networkName) => {
      requireType(scope, NETWORK_TYPE, WHAT);
      const name = parseInput(networkNameSchema, networkName, 'network_name');
      await caughtUp(name);
      const summary = await getNetwork(db, name);
      if (!summary) throw new NetworkNotFound(name);
      return summary;
    },

    listNetworks: async (scope, options = {}) => {
      requireType(scope, NETWORK_TYPE, WHAT);
      const limit = options.limit ?? DEFAULT_LIST_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
        throw new InvalidArgument(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`, {
          limit,
        });
      }
      const afterName = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
      await allCaughtUp();
      // One extra row tells whether another page follows.
      const rows = await listNetworks(db, { afterName, limit: limit + 1 });
      const networks = rows.slice(0, limit);
      const last = networks.at(-1);
      return {
        networks,
        nextCursor: rows.length > limit && last ? encodeNetworkCursor(last.name) : null,
      };
    },

    readResource: async (scope, networkName) => {
      const parsed = networkNameSchema.safeParse(networkName);
      if (!parsed.success || !mayReadType(scope, NETWORK_TYPE)) return undefined;
      await caughtUp(parsed.data);
      return readNetworkResource(db, parsed.data);
    },
  };
};
