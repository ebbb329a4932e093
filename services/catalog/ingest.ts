import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { appendDecidedAtomically, type DecidedAppend } from '../commands/decided.js';
import { runCommand } from '../commands/handler.js';
import type { CommandMetadata } from '../commands/metadata.js';
import { settleLog } from '../event-store/settle.js';
import type { AppendResult, EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { nodeContentHash, type NodeContent } from './content.js';
import {
  defaultSourceName,
  loadCorpus,
  type CorpusIssue,
  type DanglingLink,
  type LoadedCorpus,
  type SkippedFile,
} from './corpus.js';
import {
  decideNode,
  evolveNode,
  initialNodeState,
  nodeEventIds,
  type NodeCommand,
  type NodeState,
} from './decide.js';
import {
  NODE_EVENT_TYPES,
  NODE_STREAM_PREFIX,
  nodeStreamId,
  parseNodeEvent,
  type NodeEvent,
} from './events.js';
import { corpusFingerprint } from './fingerprint.js';
import type { CheckMode, SampleCheck } from './samples.js';
import {
  LEGACY_SOURCE,
  loadSourceRecords,
  parseSourceEvent,
  sourceEventId,
  sourceStreamId,
  type SourceEvent,
  type SourceIngested,
} from './sources.js';

/**
 * `ingest <dir>`: the whole folder is read and checked before the first append (any error:
 * nothing is appended), then each node is decided against its stream: new → NodePublished,
 * changed → NodeRevised, gone from the folder → NodeRetired, unchanged → nothing. Only the
 * nodes of the ingest's source are revised or retired: a uid another source owns is an error,
 * a node without a source (published before sources existed) is claimed.
 */
export type PlanAction = 'publish' | 'revise' | 'retire' | 'unchanged';

export interface PlanEntry {
  readonly uid: string;
  readonly label: string;
  readonly action: PlanAction;
}

export interface IngestReport {
  readonly root: string;
  readonly source: string;
  readonly generator: string;
  readonly files: number;
  readonly nodes: number;
  /** Nodes that are pages (not code samples). */
  readonly pages: number;
  readonly published: number;
  readonly revised: number;
  readonly retired: number;
  readonly unchanged: number;
  readonly errors: readonly CorpusIssue[];
  /** Problems that did not stop the ingest (links that go nowhere, missing includes, ...). */
  readonly warnings: readonly CorpusIssue[];
  readonly dangling: readonly DanglingLink[];
  readonly skipped: readonly SkippedFile[];
  readonly configuration: LoadedCorpus['configuration'];
  readonly versions: readonly string[];
  readonly latest: readonly string[];
  /** TypeScript/JavaScript samples that did not compile (stored with `compiled: false`). */
  readonly uncompiledSamples: readonly { uid: string; diagnostics: readonly string[] }[];
  readonly plan: readonly PlanEntry[];
  /** False on a dry run, when there were errors, or when the retirement was not confirmed. */
  readonly applied: boolean;
  readonly dryRun: boolean;
  /** True when a confirmation of the retirements was asked for and refused. */
  readonly declined: boolean;
  /** Position of the last appended event (wait for projections on it); null: none. */
  readonly lastPosition: Position | null;
  /**
   * True when the folder, the settings and the ingest's code were those its source's last
   * ingest recorded (`skipIfUnchanged`): nothing was read from the log or appended, and the
   * counts are that ingest's.
   */
  readonly upToDate: boolean;
  readonly seconds: number;
  /** Where `seconds` went: reading and checking the folder (and the log's heads), appending. */
  readonly phases: { readonly read: number; readonly append: number };
}

export interface RetireConfirmation {
  readonly source: string;
  /** Pages (not code samples) the change retires, and a few of their uids. */
  readonly pages: number;
  readonly nodes: number;
  readonly examples: readonly string[];
}

export interface IngestOptions {
  readonly dir: string;
  readonly meta: CommandMetadata;
  /** Default: from the folder's name. */
  readonly source?: string;
  readonly baseUrl?: string;
  readonly dryRun?: boolean;
  /** `syntax` (default), `types`, or false: no compile check of samples. */
  readonly checkSamples?: CheckMode | false;
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Fingerprint the folder (fingerprint.ts) and record it; when the source's last ingest
   * recorded the same one, stop there (start-up: the shipped corpus is unchanged on almost
   * every start, and planning reads every node's head from the log).
   */
  readonly skipIfUnchanged?: boolean;
  /**
   * Asked before retiring more than `confirmAbove` pages (an interactive terminal passes a
   * prompt); resolving false appends nothing.
   */
  readonly confirmRetire?: (question: RetireConfirmation) => Promise<boolean>;
  readonly confirmAbove?: number;
}

/** Retirements of more than this many pages ask first (when someone can be asked). */
export const CONFIRM_RETIRE_ABOVE = 5;
/**
 * Appends in flight at once (the pool groups their commits). With batches, four keep Postgres
 * busy; more only keep more encoded events alive at once, which the collector then copies
 * (10,000 pages: 8 × 500 in flight cost 8.5 s of garbage collection, 4 × 100 6.5 s).
 */
const APPEND_CONCURRENCY = 4;
/**
 * Nodes published or revised per atomic append, where the store has them: one transaction
 * and one multi-row insert for the batch instead of one per node.
 */
const APPEND_BATCH = 100;
/** Decisions on one node before a race with another ingest is reported. */
const MAX_ATTEMPTS = 3;
const PAGE = 1000;

/**
 * What ingest needs to know of a node without holding its content: its stream's revision and
 * content hash, its source and, for a code sample, its stored compile result.
 */
export interface NodeHead {
  readonly uid: string;
  readonly revision: bigint;
  readonly live: boolean;
  readonly contentHash: string;
  readonly label: string;
  /** Undefined: published before sources existed. */
  readonly source: string | undefined;
  readonly sample?: { readonly key: string; readonly check: SampleCheck | undefined };
}

const sampleKey = (language: string, code: string): string =>
  createHash('sha256').update(`${language}\n${code}`, 'utf8').digest('hex');

interface StoredContent {
  readonly label?: unknown;
  readonly source?: unknown;
  readonly body?: unknown;
  readonly attributes?: Record<string, unknown>;
}

const storedSampleCheck = (attributes: Record<string, unknown>): SampleCheck | undefined => {
  const compiled = attributes.compiled;
  if (typeof compiled !== 'boolean') return undefined;
  const diagnostics = attributes.diagnostics;
  return {
    mode: attributes.check === 'syntax' ? 'syntax' : 'types',
    compiled,
    diagnostics: Array.isArray(diagnostics) ? diagnostics.map(String) : [],
  };
};

/** The head of every catalog node, folded from the node streams (content is not kept). */
export const loadNodeHeads = async (eventStore: EventStore): Promise<Map<string, NodeHead>> => {
  const heads = new Map<string, NodeHead>();
  let fromPosition: Position | undefined;
  for (;;) {
    const page: RecordedEvent[] = await eventStore.readAll({
      filter: { streamPrefixes: [NODE_STREAM_PREFIX], eventTypes: NODE_EVENT_TYPES },
      maxCount: PAGE,
      ...(fromPosition ? { fromPosition } : {}),
    });
    for (const recorded of page) {
      // Our own events: read the few fields needed without validating the whole content.
      const data = recorded.data as { uid: string; contentHash: string; content: StoredContent };
      const content = data.content;
      const attributes = content.attributes ?? {};
      const label = typeof content.label === 'string' ? content.label : '';
      heads.set(data.uid, {
        uid: data.uid,
        revision: recorded.revision,
        live: recorded.type !== 'NodeRetired',
        contentHash: data.contentHash,
        label,
        source: typeof content.source === 'string' ? content.source : undefined,
        ...(label === 'CodeSample'
          ? {
              sample: {
                key: sampleKey(String(attributes.language), String(content.body)),
                check: storedSampleCheck(attributes),
              },
            }
          : {}),
      });
    }
    const last = page.at(-1);
    if (!last || page.length < PAGE) return heads;
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

/** A state good enough to decide a publish or revise on (the content is only needed to retire). */
const stateOfHead = (uid: string, head: NodeHead | undefined): NodeState =>
  head
    ? {
        uid,
        revision: head.revision,
        live: head.live,
        content: null,
        contentHash: head.contentHash,
      }
    : initialNodeState(uid);

const actionOf = (command: NodeCommand, head: NodeHead | undefined): PlanAction => {
  if (command.type === 'RetireNode') return head?.live ? 'retire' : 'unchanged';
  if (!head?.live) return 'publish';
  return head.contentHash === nodeContentHash(command.content) ? 'unchanged' : 'revise';
};

export const RETIRE_REASON = 'no longer in the corpus';

const uidOf = (command: NodeCommand): string =>
  command.type === 'PublishNode' ? command.content.uid : command.uid;

const ACTION_OF_EVENT = {
  NodePublished: 'publish',
  NodeRevised: 'revise',
  NodeRetired: 'retire',
} as const satisfies Record<NodeEvent['type'], PlanAction>;

/** What the appends did: the counts come from the events written, not from the plan. */
interface Applied {
  readonly lastPosition: Position | null;
  readonly appended: Readonly<Record<PlanAction, number>>;
}

/**
 * Waits for the log to show every committed event, so the plan sees what earlier ingests
 * wrote; a warning when a long transaction kept it back (the plan then stands on what was
 * visible, and every decision is still checked against its node's stream).
 */
const settleWarnings = async (eventStore: EventStore): Promise<CorpusIssue[]> =>
  (await settleLog(eventStore))
    ? []
    : [
        {
          file: '(event log)',
          field: 'log',
          reason:
            'another transaction kept the newest events from view; the plan counts what was visible',
          fix: 'run the same command again once it ends (nothing of another source is touched either way)',
        },
      ];

/** Appends each command's events, a few at a time; decides again on a stale head. */
const applyCommands = async (
  eventStore: EventStore,
  commands: readonly NodeCommand[],
  heads: ReadonlyMap<string, NodeHead>,
  meta: CommandMetadata,
  onProgress: ((done: number, total: number) => void) | undefined,
): Promise<Applied> => {
  let lastPosition: Position | null = null;
  const appended: Record<PlanAction, number> = { publish: 0, revise: 0, retire: 0, unchanged: 0 };
  let done = 0;
  let next = 0;
  onProgress?.(0, commands.length);
  const applyOne = async (command: NodeCommand): Promise<void> => {
    const uid = uidOf(command);
    // Decided on the heads read at the start (a retirement needs the content it carries, so
    // it reads the stream); another ingest that decided first makes the next attempt decide
    // again on what it wrote (often: nothing left to do).
    const outcome = await runCommand(
      eventStore,
      {
        streamId: nodeStreamId(uid),
        meta,
        load: async (fresh) => {
          const state =
            fresh || command.type === 'RetireNode'
              ? await readNodeState(eventStore, uid)
              : stateOfHead(uid, heads.get(uid));
          return { state, revision: state.revision, position: null, fresh };
        },
        decide: ({ state }) => decideNode(command, state),
        parse: (recorded) => parseNodeEvent(recorded.type, recorded.data),
        eventIds: ({ state }, events) => nodeEventIds(state, events),
      },
      { maxAttempts: MAX_ATTEMPTS },
    );
    for (const event of outcome.events) appended[ACTION_OF_EVENT[event.type]] += 1;
    const position = outcome.events.length > 0 ? outcome.position : null;
    if (position !== null && (lastPosition === null || position > lastPosition)) {
      lastPosition = position;
    }
  };
  const record = (events: readonly NodeEvent[], result: AppendResult): void => {
    for (const event of events) appended[ACTION_OF_EVENT[event.type]] += 1;
    if (lastPosition === null || result.position > lastPosition) lastPosition = result.position;
  };
  /**
   * Publishes and revisions decided on the heads, appended together in one atomic append;
   * on any refusal (another ingest wrote first) nothing of it is stored and each node is run
   * on its own, which decides again on its stream.
   */
  const applyBatch = async (
    appendAtomically: (decided: readonly DecidedAppend[]) => Promise<AppendResult[]>,
    batch: readonly NodeCommand[],
  ): Promise<void> => {
    const decided: { events: NodeEvent[]; append: DecidedAppend }[] = [];
    try {
      for (const command of batch) {
        const uid = uidOf(command);
        const state = stateOfHead(uid, heads.get(uid));
        const events = decideNode(command, state);
        if (events.length === 0) continue;
        decided.push({
          events,
          append: {
            streamId: nodeStreamId(uid),
            events,
            meta,
            ids: nodeEventIds(state, events),
            expectedRevision: state.revision ?? 'no_stream',
          },
        });
      }
      if (decided.length > 0) {
        const results = await appendAtomically(decided.map((entry) => entry.append));
        results.forEach((result, index) => {
          record(decided[index]?.events ?? [], result);
        });
      }
    } catch {
      for (const command of batch) await applyOne(command);
    }
  };
  const worker = async (): Promise<void> => {
    const atomically = appendDecidedAtomically(eventStore);
    while (next < commands.length) {
      const command = commands[next] as NodeCommand;
      if (atomically && command.type === 'PublishNode') {
        // A run of publishes and revisions (retirements read their streams: one at a time).
        let end = next;
        while (
          end < commands.length &&
          end - next < APPEND_BATCH &&
          commands[end]?.type === 'PublishNode'
        ) {
          end += 1;
        }
        const batch = commands.slice(next, end);
        next = end;
        await applyBatch(atomically, batch);
        done += batch.length;
      } else {
        next += 1;
        await applyOne(command);
        done += 1;
      }
      onProgress?.(done, commands.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(APPEND_CONCURRENCY, commands.length) }, worker));
  return { lastPosition, appended };
};

const appendSourceEvent = async (
  eventStore: EventStore,
  event: SourceEvent,
  meta: CommandMetadata,
): Promise<Position | null> => {
  const streamId = sourceStreamId(event.data.source);
  const outcome = await runCommand(
    eventStore,
    {
      streamId,
      meta,
      load: async (fresh) => {
        const [last] = await eventStore.readStream(streamId, {
          direction: 'backwards',
          maxCount: 1,
        });
        return {
          state: undefined,
          revision: last?.revision ?? null,
          position: last?.position ?? null,
          fresh,
        };
      },
      decide: () => [event],
      parse: (recorded) => parseSourceEvent(recorded.type, recorded.data),
      eventIds: ({ revision }, events) =>
        events.map((decided) => sourceEventId(decided, revision === null ? 0n : revision + 1n)),
    },
    { maxAttempts: MAX_ATTEMPTS },
  );
  return outcome.position;
};

const countActions = (plan: readonly PlanEntry[]): Record<PlanAction, number> => {
  const counts: Record<PlanAction, number> = { publish: 0, revise: 0, retire: 0, unchanged: 0 };
  for (const entry of plan) counts[entry.action] += 1;
  return counts;
};

const confirmationOf = (source: string, plan: readonly PlanEntry[]): RetireConfirmation => {
  const retired = plan.filter((entry) => entry.action === 'retire');
  const pages = retired.filter((entry) => entry.label !== 'CodeSample');
  return {
    source,
    pages: pages.length,
    nodes: retired.length,
    examples: pages.slice(0, 5).map((entry) => entry.uid),
  };
};

/** The report of an ingest that found its folder as its source's last ingest left it. */
const upToDateReport = (
  last: SourceIngested,
  files: number,
  warnings: readonly CorpusIssue[],
  started: number,
): IngestReport => ({
  root: last.root,
  source: last.source,
  generator: last.generator,
  files,
  nodes: last.nodes,
  pages: last.pages,
  published: 0,
  revised: 0,
  retired: 0,
  unchanged: last.nodes,
  errors: [],
  warnings,
  dangling: [],
  skipped: [],
  configuration: [],
  versions: last.versions,
  latest: last.latest,
  uncompiledSamples: [],
  plan: [],
  applied: true,
  dryRun: false,
  declined: false,
  lastPosition: null,
  upToDate: true,
  seconds: (performance.now() - started) / 1000,
  phases: { read: (performance.now() - started) / 1000, append: 0 },
});

export const ingestCorpus = async (
  eventStore: EventStore,
  options: IngestOptions,
): Promise<IngestReport> => {
  const started = performance.now();
  const logWarnings = await settleWarnings(eventStore);
  const settings = {
    source: options.source ?? defaultSourceName(resolve(options.dir)),
    baseUrl: options.baseUrl ?? null,
    checkSamples: options.checkSamples ?? 'syntax',
  };
  // A folder that cannot be read gets the full path's report of why.
  const fingerprinted = options.skipIfUnchanged
    ? await corpusFingerprint(resolve(options.dir), settings).catch(() => undefined)
    : undefined;
  if (fingerprinted) {
    const previous = (await loadSourceRecords(eventStore)).get(settings.source);
    const last = previous?.removed ? undefined : previous?.last;
    if (last?.fingerprint === fingerprinted.fingerprint && !options.dryRun) {
      return upToDateReport(last, fingerprinted.files, logWarnings, started);
    }
  }
  const heads = await loadNodeHeads(eventStore);
  const corpus = await loadCorpus(options.dir, {
    ...(options.source === undefined ? {} : { source: options.source }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.checkSamples === undefined ? {} : { checkSamples: options.checkSamples }),
    knownCheck: (uid, language, code) => {
      const sample = heads.get(uid)?.sample;
      return sample?.key === sampleKey(language, code) ? sample.check : undefined;
    },
  });
  const { source } = corpus;
  const errors: CorpusIssue[] = [...corpus.errors];
  // A uid that another source owns stays with it.
  for (const node of corpus.nodes) {
    const head = heads.get(node.uid);
    if (head?.live && head.source !== undefined && head.source !== source) {
      errors.push({
        file: node.sourcePath ?? node.uid,
        field: 'uid',
        reason: `"${node.uid}" belongs to source ${head.source}`,
        fix: `give the page another uid, or remove it from ${head.source} first (cogitave sources remove ${head.source})`,
      });
    }
  }
  const commands: NodeCommand[] = corpus.nodes.map((content: NodeContent) => ({
    type: 'PublishNode',
    content,
  }));
  const inCorpus = new Set(corpus.nodes.map((node) => node.uid));
  for (const head of [...heads.values()].sort((a, b) => (a.uid < b.uid ? -1 : 1))) {
    if (head.live && head.source === source && !inCorpus.has(head.uid)) {
      commands.push({ type: 'RetireNode', uid: head.uid, reason: RETIRE_REASON });
    }
  }
  const plan: PlanEntry[] = commands.map((command) => {
    const head = heads.get(uidOf(command));
    return {
      uid: uidOf(command),
      label: command.type === 'PublishNode' ? command.content.label : (head?.label ?? ''),
      action: actionOf(command, head),
    };
  });
  const planned = countActions(plan);
  const read = performance.now();
  const report = (
    applied: boolean,
    lastPosition: Position | null,
    declined = false,
    done?: Applied['appended'],
  ): IngestReport => {
    const counts = done
      ? { ...done, unchanged: plan.length - done.publish - done.revise - done.retire }
      : planned;
    return {
      root: corpus.root,
      source,
      generator: corpus.generator,
      files: corpus.files,
      nodes: corpus.nodes.length,
      pages: corpus.nodes.filter((node) => node.label !== 'CodeSample').length,
      published: counts.publish,
      revised: counts.revise,
      retired: counts.retire,
      unchanged: counts.unchanged,
      errors,
      warnings: [...logWarnings, ...corpus.warnings],
      dangling: corpus.dangling,
      skipped: corpus.skipped,
      configuration: corpus.configuration,
      versions: corpus.versions,
      latest: corpus.latest,
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
      declined,
      lastPosition,
      upToDate: false,
      seconds: (performance.now() - started) / 1000,
      phases: { read: (read - started) / 1000, append: (performance.now() - read) / 1000 },
    };
  };
  if (errors.length > 0 || options.dryRun) return report(false, null);
  const question = confirmationOf(source, plan);
  if (options.confirmRetire && question.pages > (options.confirmAbove ?? CONFIRM_RETIRE_ABOVE)) {
    if (!(await options.confirmRetire(question))) return report(false, null, true);
  }
  const changes = commands.filter((_, index) => plan[index]?.action !== 'unchanged');
  const applied = await applyCommands(eventStore, changes, heads, options.meta, options.onProgress);
  let { lastPosition } = applied;
  const records = await loadSourceRecords(eventStore);
  const record = {
    source,
    root: corpus.root,
    generator: corpus.generator,
    baseUrl: corpus.baseUrl ?? null,
    nodes: corpus.nodes.length,
    pages: corpus.nodes.filter((node) => node.label !== 'CodeSample').length,
    versions: [...corpus.versions],
    latest: [...corpus.latest],
    ...(fingerprinted ? { fingerprint: fingerprinted.fingerprint } : {}),
  };
  const previous = records.get(source);
  const same =
    previous?.last !== undefined && JSON.stringify(previous.last) === JSON.stringify(record);
  if (lastPosition !== null || !same) {
    lastPosition = await appendSourceEvent(
      eventStore,
      { type: 'SourceIngested', data: record },
      options.meta,
    );
  }
  return report(true, lastPosition, false, applied.appended);
};

export interface RemoveSourceReport {
  readonly source: string;
  readonly retired: number;
  readonly pages: number;
  readonly applied: boolean;
  readonly declined: boolean;
  readonly lastPosition: Position | null;
}

/**
 * Retires every live node of a source (`legacy`: the nodes without one) and records the
 * removal. Asks first, like an ingest, when it would retire more than a few pages.
 */
export const removeSource = async (
  eventStore: EventStore,
  options: {
    readonly source: string;
    readonly meta: CommandMetadata;
    readonly dryRun?: boolean;
    readonly confirmRetire?: (question: RetireConfirmation) => Promise<boolean>;
    readonly confirmAbove?: number;
    readonly onProgress?: (done: number, total: number) => void;
  },
): Promise<RemoveSourceReport> => {
  await settleLog(eventStore);
  const heads = await loadNodeHeads(eventStore);
  const owned = [...heads.values()].filter(
    (head) => head.live && (head.source ?? LEGACY_SOURCE) === options.source,
  );
  const plan: PlanEntry[] = owned.map((head) => ({
    uid: head.uid,
    label: head.label,
    action: 'retire',
  }));
  const question = confirmationOf(options.source, plan);
  const result = (
    applied: boolean,
    lastPosition: Position | null,
    declined = false,
  ): RemoveSourceReport => ({
    source: options.source,
    retired: owned.length,
    pages: question.pages,
    applied,
    declined,
    lastPosition,
  });
  if (options.dryRun) return result(false, null);
  if (options.confirmRetire && question.pages > (options.confirmAbove ?? CONFIRM_RETIRE_ABOVE)) {
    if (!(await options.confirmRetire(question))) return result(false, null, true);
  }
  const commands: NodeCommand[] = owned.map((head) => ({
    type: 'RetireNode',
    uid: head.uid,
    reason: `source ${options.source} removed`,
  }));
  let { lastPosition } = await applyCommands(
    eventStore,
    commands,
    heads,
    options.meta,
    options.onProgress,
  );
  const records = await loadSourceRecords(eventStore);
  if (
    records.get(options.source)?.removed !== true &&
    (owned.length > 0 || records.has(options.source))
  ) {
    lastPosition =
      (await appendSourceEvent(
        eventStore,
        { type: 'SourceRemoved', data: { source: options.source, retired: owned.length } },
        options.meta,
      )) ?? lastPosition;
  }
  return result(true, lastPosition);
};

export interface SourceSummary {
  readonly name: string;
  readonly nodes: number;
  readonly pages: number;
  readonly root: string | null;
  readonly generator: string | null;
  readonly baseUrl: string | null;
  readonly versions: readonly string[];
  readonly lastIngested: string | null;
}

/** Every source with live nodes or a record, with its live node counts (from the log). */
export const listSources = async (eventStore: EventStore): Promise<SourceSummary[]> => {
  await settleLog(eventStore);
  const [heads, records] = await Promise.all([
    loadNodeHeads(eventStore),
    loadSourceRecords(eventStore),
  ]);
  const counts = new Map<string, { nodes: number; pages: number }>();
  for (const head of heads.values()) {
    if (!head.live) continue;
    const name = head.source ?? LEGACY_SOURCE;
    const count = counts.get(name) ?? { nodes: 0, pages: 0 };
    count.nodes += 1;
    if (head.label !== 'CodeSample') count.pages += 1;
    counts.set(name, count);
  }
  const names = new Set([
    ...counts.keys(),
    ...[...records.values()].filter((r) => !r.removed).map((r) => r.name),
  ]);
  return [...names].sort().map((name) => {
    const record = records.get(name);
    const last = record?.removed ? undefined : record?.last;
    return {
      name,
      nodes: counts.get(name)?.nodes ?? 0,
      pages: counts.get(name)?.pages ?? 0,
      root: last?.root ?? null,
      generator: last?.generator ?? null,
      baseUrl: last?.baseUrl ?? null,
      versions: last?.versions ?? [],
      lastIngested: last ? (record?.at ?? null) : null,
    };
  });
};
