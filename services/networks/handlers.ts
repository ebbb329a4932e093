import { parseInput } from '../commands/inputs.js';
import { parseCommandMetadata, type CommandMetadata } from '../commands/metadata.js';
import type { EventStore, Position } from '../event-store/types.js';
import { CogitaveError, type ErrorCode } from '../runtime/errors.js';
import {
  DEFAULT_NETWORK_LIMITS,
  decideNetwork,
  type NetworkCommand,
  type NetworkLimits,
} from './decide.js';
import { decideAddEdges, decideAddNodes, type ItemOutcome } from './decide-batch.js';
import type { AddedEdge, NetworkEvent } from './events.js';
import { createNetworkExecutor, type Executed } from './execute.js';
import {
  addEdgeInputSchema,
  addEdgesInputSchema,
  addNodeInputSchema,
  addNodesInputSchema,
  createNetworkInputSchema,
  type AddEdgeInput,
  type AddEdgesInput,
  type AddNodeInput,
  type AddNodesInput,
  type CreateNetworkInput,
} from './inputs.js';

/**
 * The write side of networks: validate, bring the network's state up to date from its stream,
 * decide, append at the revision the decision was made on. The duplicate checks therefore
 * read the event stream, never the read model.
 *
 * A network can hold a million events, so each handler set keeps the folded state of the
 * networks it recently wrote (a cache of the stream, not a source of truth: state-cache.ts);
 * whenever the cache may be behind it reads the events after the cached revision, so writes
 * from other processes are seen. Commands on one network are serialised within a process;
 * across processes the expected revision guards the append, and a `WrongExpectedVersion`
 * means: catch up, decide again, retry (a node someone else just added then answers
 * `duplicate`). How a command runs is execute.ts; this module validates and answers.
 */

export type NetworkWriteStatus = 'success' | 'duplicate';

export interface NetworkWriteResult {
  /** `duplicate`: already so (the network or node exists); nothing was appended. */
  readonly status: NetworkWriteStatus;
  readonly networkName: string;
  /** Revision of the network's stream after the command. */
  readonly revision: bigint;
  /**
   * Position of the newest event of the network the command saw or wrote: once the networks
   * projection has reached it, the read model shows the effect (read-your-writes).
   */
  readonly position: Position;
}

export interface AddNodeResult extends NetworkWriteResult {
  readonly nodeId: string;
}

export interface AddEdgeResult extends NetworkWriteResult {
  readonly status: 'success';
  readonly edgeId: number;
  readonly source: string;
  readonly target: string;
  readonly weight: number;
}

/** The outcome of one item of a batch: as the single-item command would answer it. */
export interface BatchItemResult {
  readonly status: 'success' | 'duplicate' | 'error';
  /** Why the item was not added; only when status is `error`. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

/** A batch's revision and position are the network's after the call (as a single write's). */
export interface AddNodesResult extends Omit<NetworkWriteResult, 'status'> {
  /** One per input node, in order. */
  readonly nodes: readonly (BatchItemResult & { readonly nodeId: string })[];
}

export interface AddEdgesResult extends Omit<NetworkWriteResult, 'status'> {
  /** One per input edge, in order; `edgeId` when it was added. */
  readonly edges: readonly (BatchItemResult & {
    readonly status: 'success' | 'error';
    readonly source: string;
    readonly target: string;
    readonly weight: number;
    readonly edgeId?: number;
  })[];
}

export interface NetworkCommandHandlers {
  createNetwork(input: CreateNetworkInput, meta: CommandMetadata): Promise<NetworkWriteResult>;
  addNode(input: AddNodeInput, meta: CommandMetadata): Promise<AddNodeResult>;
  addEdge(input: AddEdgeInput, meta: CommandMetadata): Promise<AddEdgeResult>;
  /** Up to MAX_BATCH_ITEMS nodes in one append; each answers success, duplicate or error. */
  addNodes(input: AddNodesInput, meta: CommandMetadata): Promise<AddNodesResult>;
  /** Up to MAX_BATCH_ITEMS edges in one append; each answers success or error. */
  addEdges(input: AddEdgesInput, meta: CommandMetadata): Promise<AddEdgesResult>;
}

export interface NetworkCommandHandlerDeps {
  readonly eventStore: EventStore;
  readonly limits?: NetworkLimits;
  /** Decisions retried after a concurrent write before giving up (default 10). */
  readonly maxAttempts?: number;
  /** Networks whose folded state is kept between commands (default 32). */
  readonly cachedNetworks?: number;
}

const DEFAULT_WEIGHT = 1.0;

/** The edges `events` added, in order: one per `NetworkEdgeAdded`, a batch's all at once. */
const addedEdges = (events: readonly NetworkEvent[]): AddedEdge[] =>
  events.flatMap((event) => {
    switch (event.type) {
      case 'NetworkEdgeAdded':
        return [event.data];
      case 'NetworkEdgesAdded':
        return event.data.edges;
      case 'NetworkCreated':
      case 'NetworkNodeAdded':
      case 'NetworkNodesAdded':
        return [];
      default:
        return event satisfies never;
    }
  });

const itemAt = (items: readonly ItemOutcome[], index: number): ItemOutcome => {
  const item = items[index];
  if (!item) throw new CogitaveError('INTERNAL', `batch item ${String(index)} was not decided`);
  return item;
};

const itemResult = (item: ItemOutcome): BatchItemResult =>
  item.status === 'error'
    ? { status: 'error', error: { code: item.error.code, message: item.error.message } }
    : { status: item.status };

/** The answer of a single write: `duplicate` when the command appended nothing. */
const outcome = (networkName: string, executed: Executed): NetworkWriteResult => {
  const { state, position } = executed.folded;
  if (position === null || state.revision === null) {
    throw new CogitaveError('INTERNAL', `network ${networkName} has no events after a command`);
  }
  return {
    status: executed.events.length === 0 ? 'duplicate' : 'success',
    networkName,
    revision: state.revision,
    position,
  };
};

export const createNetworkCommandHandlers = ({
  eventStore,
  limits = DEFAULT_NETWORK_LIMITS,
  maxAttempts = 10,
  cachedNetworks = 32,
}: NetworkCommandHandlerDeps): NetworkCommandHandlers => {
  const { execute, executeBatch } = createNetworkExecutor({
    eventStore,
    maxAttempts,
    cachedNetworks,
  });

  const executeCommand = (command: NetworkCommand): Promise<Executed> =>
    execute(command.networkName, command.meta, ({ state }) =>
      decideNetwork(command, state, limits),
    );

  return {
    createNetwork: async (input, meta) => {
      const parsedMeta = parseCommandMetadata(meta, 'createNetwork');
      const parsed = parseInput(createNetworkInputSchema, input, 'createNetwork');
      const executed = await executeCommand({
        type: 'CreateNetwork',
        networkName: parsed.networkName,
        description: parsed.description ?? null,
        meta: parsedMeta,
      });
      return outcome(parsed.networkName, executed);
    },

    addNode: async (input, meta) => {
      const parsedMeta = parseCommandMetadata(meta, 'addNode');
      const parsed = parseInput(addNodeInputSchema, input, 'addNode');
      const executed = await executeCommand({
        type: 'AddNode',
        networkName: parsed.networkName,
        nodeId: parsed.nodeId,
        data: parsed.data ?? null,
        attributes: parsed.attributes ?? {},
        meta: parsedMeta,
      });
      return { ...outcome(parsed.networkName, executed), nodeId: parsed.nodeId };
    },

    addEdge: async (input, meta) => {
      const parsedMeta = parseCommandMetadata(meta, 'addEdge');
      const parsed = parseInput(addEdgeInputSchema, input, 'addEdge');
      const executed = await executeCommand({
        type: 'AddEdge',
        networkName: parsed.networkName,
        source: parsed.source,
        target: parsed.target,
        weight: parsed.weight ?? DEFAULT_WEIGHT,
        attributes: parsed.attributes ?? {},
        meta: parsedMeta,
      });
      const [edge] = addedEdges(executed.events);
      if (!edge) throw new CogitaveError('INTERNAL', 'addEdge decided no edge');
      return {
        ...outcome(parsed.networkName, executed),
        status: 'success',
        edgeId: edge.edgeId,
        source: edge.source,
        target: edge.target,
        weight: edge.weight,
      };
    },

    addNodes: async (input, meta) => {
      const parsedMeta = parseCommandMetadata(meta, 'addNodes');
      const parsed = parseInput(addNodesInputSchema, input, 'addNodes');
      const nodes = parsed.nodes.map((node) => ({
        nodeId: node.nodeId,
        data: node.data ?? null,
        attributes: node.attributes ?? {},
      }));
      const { executed, items } = await executeBatch(parsed.networkName, parsedMeta, (state) =>
        decideAddNodes(
          { type: 'AddNodes', networkName: parsed.networkName, nodes, meta: parsedMeta },
          state,
          limits,
        ),
      );
      const { networkName, revision, position } = outcome(parsed.networkName, executed);
      return {
        networkName,
        revision,
        position,
        nodes: nodes.map((node, index) => ({
          nodeId: node.nodeId,
          ...itemResult(itemAt(items, index)),
        })),
      };
    },

    addEdges: async (input, meta) => {
      const parsedMeta = parseCommandMetadata(meta, 'addEdges');
      const parsed = parseInput(addEdgesInputSchema, input, 'addEdges');
      const edges = parsed.edges.map((edge) => ({
        source: edge.source,
        target: edge.target,
        weight: edge.weight ?? DEFAULT_WEIGHT,
        attributes: edge.attributes ?? {},
      }));
      const { executed, items } = await executeBatch(parsed.networkName, parsedMeta, (state) =>
        decideAddEdges(
          { type: 'AddEdges', networkName: parsed.networkName, edges, meta: parsedMeta },
          state,
          limits,
        ),
      );
      // The appended (or, for a retried call, the stored) edges, in the order of the successes.
      const added = addedEdges(executed.events);
      let next = 0;
      const { networkName, revision, position } = outcome(parsed.networkName, executed);
      return {
        networkName,
        revision,
        position,
        edges: edges.map(({ source, target, weight }, index) => {
          const item = itemAt(items, index);
          if (item.status === 'duplicate') {
            throw new CogitaveError('INTERNAL', 'addEdges decided a duplicate edge');
          }
          const result = { source, target, weight, ...itemResult(item), status: item.status };
          if (item.status !== 'success') return result;
          const edgeId = added[next++]?.edgeId;
          if (edgeId === undefined) throw new CogitaveError('INTERNAL', 'addEdges lost an edge');
          return { ...result, edgeId };
        }),
      };
    },
  };
};
