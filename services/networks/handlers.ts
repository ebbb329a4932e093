import { runCommand, type CommandOutcome, type Folded as Decidable } from '../commands/handler.js';
import { parseInput } from '../commands/inputs.js';
import { parseCommandMetadata, type CommandMetadata } from '../commands/metadata.js';
import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { CogitaveError, type ErrorCode } from '../runtime/errors.js';
import {
  DEFAULT_NETWORK_LIMITS,
  decideNetwork,
  type NetworkCommand,
  type NetworkLimits,
} from './decide.js';
import {
  decideAddEdges,
  decideAddNodes,
  type BatchDecision,
  type ItemOutcome,
} from './decide-batch.js';
import { NetworkBusy } from './errors.js';
import {
  NETWORK_EVENT_TYPES,
  networkStreamId,
  type AddedEdge,
  type NetworkEvent,
} from './events.js';
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
import { evolve, initialNetworkState, type NetworkState } from './state.js';

/**
 * The write side of networks: validate, bring the network's state up to date from its stream,
 * decide, append at the revision the decision was made on. The duplicate checks therefore
 * read the event stream, never the read model.
 *
 * A network can hold a million events, so each handler set keeps the folded state of the
 * networks it recently wrote (a cache of the stream, not a source of truth, see `decideOn`);
 * whenever the cache may be behind it reads the events after the cached revision, so writes
 * from other processes are seen. Commands on one network are serialised within a process; across processes the
 * expected revision guards the append, and a `WrongExpectedVersion` means: catch up, decide
 * again, retry (a node someone else just added then answers `duplicate`).
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

const PAGE = 10_000;
const DEFAULT_WEIGHT = 1.0;

interface Folded {
  readonly state: NetworkState;
  /** Position of the last event folded; null while the stream does not exist. */
  readonly position: Position | null;
}

const EMPTY = (): Folded => ({ state: initialNetworkState(), position: null });

const isNetworkEventType = (type: string): type is NetworkEvent['type'] =>
  (NETWORK_EVENT_TYPES as readonly string[]).includes(type);

/** Stored events are trusted (they were decided); an unknown type means this code is too old. */
const toNetworkEvent = (event: RecordedEvent): NetworkEvent => {
  if (!isNetworkEventType(event.type)) {
    throw new CogitaveError(
      'INTERNAL',
      `Stream ${event.streamId} holds event type "${event.type}" at revision ${event.revision}, which this version does not know; upgrade before writing to it.`,
      { streamId: event.streamId, type: event.type },
    );
  }
  return { type: event.type, data: event.data } as NetworkEvent;
};

/** The edges `events` added, in order: one per `NetworkEdgeAdded`, a batch's all at once. */
const addedEdges = (events: readonly NetworkEvent[]): AddedEdge[] =>
  events.flatMap((event) => {
    if (event.type === 'NetworkEdgeAdded') return [event.data];
    if (event.type === 'NetworkEdgesAdded') return event.data.edges;
    return [];
  });

/** A batch decided on a cached state refused an item: only the stream can confirm that. */
class RefusedOnCache extends Error {}

const itemAt = (items: readonly ItemOutcome[], index: number): ItemOutcome => {
  const item = items[index];
  if (!item) throw new CogitaveError('INTERNAL', `batch item ${String(index)} was not decided`);
  return item;
};

const itemResult = (item: ItemOutcome): BatchItemResult =>
  item.status === 'error'
    ? { status: 'error', error: { code: item.error.code, message: item.error.message } }
    : { status: item.status };

/** Runs `task`s of one key one after another; other keys run freely. */
const createKeyedQueue = () => {
  const tails = new Map<string, Promise<void>>();
  return async <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    let release: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
};

export const createNetworkCommandHandlers = ({
  eventStore,
  limits = DEFAULT_NETWORK_LIMITS,
  maxAttempts = 10,
  cachedNetworks = 32,
}: NetworkCommandHandlerDeps): NetworkCommandHandlers => {
  const cache = new Map<string, Folded>();
  const serialised = createKeyedQueue();

  const remember = (streamId: string, folded: Folded): void => {
    cache.delete(streamId);
    cache.set(streamId, folded);
    while (cache.size > cachedNetworks) {
      const oldest = cache.keys().next();
      if (oldest.done) break;
      cache.delete(oldest.value);
    }
  };

  /** The cached state brought up to the end of the stream. */
  const catchUp = async (streamId: string): Promise<Folded> => {
    let { state, position } = cache.get(streamId) ?? EMPTY();
    for (;;) {
      const from = state.revision === null ? 0n : state.revision + 1n;
      const page = await eventStore.readStream(streamId, { fromRevision: from, maxCount: PAGE });
      for (const recorded of page) {
        if (recorded.revision !== (state.revision === null ? 0n : state.revision + 1n)) {
          // The stream is not what the cache was folded from (e.g. the database was reset).
          cache.delete(streamId);
          throw new CogitaveError(
            'UNAVAILABLE',
            `Network stream ${streamId} changed under its cached state; retry the call.`,
            { streamId },
          );
        }
        state = evolve(state, toNetworkEvent(recorded));
        position = recorded.position;
      }
      if (page.length < PAGE) break;
    }
    const folded = { state, position };
    remember(streamId, folded);
    return folded;
  };

  interface Executed {
    /** The network after the command (as decided on, when nothing was appended). */
    readonly folded: Folded;
    /** The command's events: appended now, or stored by an earlier attempt of it. */
    readonly events: readonly NetworkEvent[];
  }

  /**
   * Runs the command on the cached state when there is one (saving a read per command), else
   * on the stream. The cache is always a prefix of the stream, so what it decides is safe: a
   * node it knows exists (`duplicate` is right), and events it decides are appended at its
   * revision, which the store refuses if the stream moved on. A refusal decided on the cache
   * is checked on the stream (`runCommand` does that for a state that is not `fresh`).
   */
  const execute = (
    networkName: string,
    meta: CommandMetadata,
    decide: (folded: Decidable<NetworkState>) => readonly NetworkEvent[],
  ): Promise<Executed> => {
    const streamId = networkStreamId(networkName);
    return serialised(streamId, async () => {
      const outcome: CommandOutcome<NetworkState, NetworkEvent> = await runCommand(
        eventStore,
        {
          streamId,
          meta,
          load: async (fresh) => {
            const cached = fresh ? undefined : cache.get(streamId);
            const folded = cached ?? (await catchUp(streamId));
            return { ...folded, revision: folded.state.revision, fresh: cached === undefined };
          },
          decide,
          parse: toNetworkEvent,
        },
        {
          maxAttempts,
          conflict: (error, attempts) => new NetworkBusy(networkName, attempts, { cause: error }),
        },
      );
      const decidedOn = { state: outcome.decidedOn.state, position: outcome.decidedOn.position };
      if (outcome.replayed || outcome.events.length === 0) {
        return { folded: decidedOn, events: outcome.events };
      }
      const next = {
        state: outcome.events.reduce(evolve, decidedOn.state),
        position: outcome.position,
      };
      if (next.state.revision === outcome.revision) remember(streamId, next);
      else cache.delete(streamId);
      return { folded: next, events: outcome.events };
    });
  };

  const executeCommand = (command: NetworkCommand): Promise<Executed> =>
    execute(command.networkName, command.meta, ({ state }) =>
      decideNetwork(command, state, limits),
    );

  /** Runs a batch; `items` are those of the decision whose events were appended (or replayed). */
  const executeBatch = async (
    networkName: string,
    meta: CommandMetadata,
    decideBatch: (state: NetworkState) => BatchDecision<NetworkEvent>,
  ): Promise<{ readonly executed: Executed; readonly items: readonly ItemOutcome[] }> => {
    let items: readonly ItemOutcome[] = [];
    const executed = await execute(networkName, meta, (folded) => {
      const decision = decideBatch(folded.state);
      if (!folded.fresh && decision.items.some((item) => item.status === 'error')) {
        throw new RefusedOnCache();
      }
      items = decision.items;
      return decision.events;
    });
    return { executed, items };
  };

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
