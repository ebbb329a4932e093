import { runCommand } from '../commands/handler.js';
import type { CommandMetadata } from '../commands/metadata.js';
import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import type { NodeContent } from './content.js';
import { loadCorpus, type CorpusIssue, type DanglingLink } from './corpus.js';
import {
  decideNode,
  evolveNode,
  initialNodeState,
  nodeEventIds,
  type NodeCommand,
  type NodeState,
} from './decide.js';
import { NODE_EVENT_TYPES, NODE_STREAM_PREFIX, nodeStreamId, parseNodeEvent } from './events.js';
import type { SampleCheck } from './samples.js';

/**
 * `ingest <dir>`: the whole corpus is read and validated before the first append (any error:
 * nothing is appended), then each node is decided against its stream: new → NodePublished,
 * changed → NodeRevised, gone from the corpus → NodeRetired, unchanged → nothing.
 */
export type PlanAction = 'publish' | 'revise' | 'retire' | 'unchanged';

export interface PlanEntry {
  readonly uid: string;
  readonly label: string;
  readonly action: PlanAction;
}

export interface IngestReport {
  readonly root: string;
  readonly files: number;
  readonly nodes: number;
  readonly published: number;
  readonly revised: number;
  readonly retired: number;
  readonly unchanged: number;
  readonly errors: readonly CorpusIssue[];
  readonly dangling: readonly DanglingLink[];
  /** TypeScript/JavaScript samples that did not compile (stored with `compiled: false`). */
  readonly uncompiledSamples: readonly { uid: string; diagnostics: readonly string[] }[];
  readonly plan: readonly PlanEntry[];
  /** False on a dry run or when there were errors. */
  readonly applied: boolean;
  readonly dryRun: boolean;
  /** Position of the last appended event (wait for projections on it); null: none. */
  readonly lastPosition: Position | null;
  readonly seconds: number;
}

export interface IngestOptions {
  readonly dir: string;
  readonly meta: CommandMetadata;
  readonly dryRun?: boolean;
  /** Skip the TypeScript compile check of samples. */
  readonly checkSamples?: boolean;
  readonly onProgress?: (done: number, total: number) => void;
}

const PAGE = 5000;

/** Decisions on one node before a race with another ingest is reported. */
const MAX_ATTEMPTS = 3;

/** The current state of every catalog node, folded from the node streams. */
export const loadNodeStates = async (eventStore: EventStore): Promise<Map<string, NodeState>> => {
  const states = new Map<string, NodeState>();
  let fromPosition: Position | undefined;
  for (;;) {
    const page: RecordedEvent[] = await eventStore.readAll({
      filter: { streamPrefixes: [NODE_STREAM_PREFIX], eventTypes: NODE_EVENT_TYPES },
      maxCount: PAGE,
      ...(fromPosition ? { fromPosition } : {}),
    });
    for (const recorded of page) {
      const event = parseNodeEvent(recorded.type, recorded.data);
      const state = states.get(event.data.uid) ?? initialNodeState(event.data.uid);
      states.set(event.data.uid, { ...evolveNode(state, event), revision: recorded.revision });
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) return states;
    fromPosition = last.position;
  }
};

const readNodeState = async (eventStore: EventStore, uid: string): Promise<NodeState> => {
  const events = await eventStore.readStream(nodeStreamId(uid));
  return events.reduce<NodeState>(
    (state, recorded) => ({
      ...evolveNode(state, parseNodeEvent(recorded.type, recorded.data)),
      revision: recorded.revision,
    }),
    initialNodeState(uid),
  );
};

/** Reuses a stored compile result when the sample's code is unchanged (saves seconds per start). */
const storedCheck =
  (states: ReadonlyMap<string, NodeState>) =>
  (uid: string, language: string, code: string): SampleCheck | undefined => {
    const content = states.get(uid)?.content;
    const compiled = content?.attributes.compiled;
    if (!content || content.body !== code || content.attributes.language !== language)
      return undefined;
    if (typeof compiled !== 'boolean') return undefined;
    const diagnostics = content.attributes.diagnostics;
    return {
      compiled,
      diagnostics: Array.isArray(diagnostics) ? diagnostics.map(String) : [],
    };
  };

const actionOf = (command: NodeCommand, state: NodeState): PlanAction => {
  const events = decideNode(command, state);
  const first = events[0];
  if (!first) return 'unchanged';
  return first.type === 'NodePublished'
    ? 'publish'
    : first.type === 'NodeRevised'
      ? 'revise'
      : 'retire';
};

export const RETIRE_REASON = 'no longer in the corpus';

export const ingestCorpus = async (
  eventStore: EventStore,
  options: IngestOptions,
): Promise<IngestReport> => {
  const started = performance.now();
  const states = await loadNodeStates(eventStore);
  const corpus = await loadCorpus(options.dir, {
    ...(options.checkSamples === undefined ? {} : { checkSamples: options.checkSamples }),
    knownCheck: storedCheck(states),
  });
  const commands: NodeCommand[] = corpus.nodes.map((content: NodeContent) => ({
    type: 'PublishNode',
    content,
  }));
  const inCorpus = new Set(corpus.nodes.map((node) => node.uid));
  for (const state of [...states.values()].sort((a, b) => (a.uid < b.uid ? -1 : 1))) {
    if (state.live && !inCorpus.has(state.uid)) {
      commands.push({ type: 'RetireNode', uid: state.uid, reason: RETIRE_REASON });
    }
  }
  const uidOf = (command: NodeCommand): string =>
    command.type === 'PublishNode' ? command.content.uid : command.uid;
  const plan: PlanEntry[] = commands.map((command) => {
    const state = states.get(uidOf(command)) ?? initialNodeState(uidOf(command));
    return {
      uid: uidOf(command),
      label: command.type === 'PublishNode' ? command.content.label : (state.content?.label ?? ''),
      action: actionOf(command, state),
    };
  });
  const count = (action: PlanAction): number =>
    plan.filter((entry) => entry.action === action).length;
  const report = (applied: boolean, lastPosition: Position | null): IngestReport => ({
    root: corpus.root,
    files: corpus.files,
    nodes: corpus.nodes.length,
    published: count('publish'),
    revised: count('revise'),
    retired: count('retire'),
    unchanged: count('unchanged'),
    errors: corpus.errors,
    dangling: corpus.dangling,
    uncompiledSamples: corpus.nodes
      .filter((node) => node.label === 'CodeSample' && node.attributes.compiled === false)
      .map((node) => ({
        uid: node.uid,
        diagnostics: Array.isArray(node.attributes.diagnostics)
          ? node.attributes.diagnostics.map(String)
          : [],
      })),
    plan,
    applied,
    dryRun: options.dryRun ?? false,
    lastPosition,
    seconds: (performance.now() - started) / 1000,
  });
  if (corpus.errors.length > 0 || options.dryRun) return report(false, null);

  const changes = commands.filter((_, index) => plan[index]?.action !== 'unchanged');
  let lastPosition: Position | null = null;
  let done = 0;
  options.onProgress?.(0, changes.length);
  for (const command of changes) {
    const uid = uidOf(command);
    // Decided on the states read at the start; another ingest that decided first makes the
    // next attempt decide again on what it wrote (often: nothing left to do).
    const outcome = await runCommand(
      eventStore,
      {
        streamId: nodeStreamId(uid),
        meta: options.meta,
        load: async (fresh) => {
          const state = fresh
            ? await readNodeState(eventStore, uid)
            : (states.get(uid) ?? initialNodeState(uid));
          return { state, revision: state.revision, position: null, fresh };
        },
        decide: ({ state }) => decideNode(command, state),
        parse: (recorded) => parseNodeEvent(recorded.type, recorded.data),
        eventIds: ({ state }, events) => nodeEventIds(state, events),
      },
      { maxAttempts: MAX_ATTEMPTS },
    );
    if (outcome.events.length > 0) lastPosition = outcome.position ?? lastPosition;
    done += 1;
    options.onProgress?.(done, changes.length);
  }
  return report(true, lastPosition);
};
