import type { ChangeSignal } from '../../projections/change-feed.js';
import type { Queryable } from '../database/queryable.js';
import { mayRead, type ReadScope } from '../access/grants.js';
import { InvalidArgument, Unavailable } from '../runtime/errors.js';
import type { Logger } from '../runtime/logger.js';
import { labelNames, labelSpec, MONIKER_HELP, MONIKER_PATTERN } from '../catalog/vocabulary.js';
import { createEntryStore, type Entry } from './entries.js';
import { bestSection, passageOffsets, preferredVersion, type SectionHit } from './pages.js';
import {
  catalogUidOf,
  isCatalogCollection,
  nodeUri,
  toRetrievalDocument,
  type CatalogEdge,
  type CatalogNode,
} from './documents.js';
import type { Embedder } from './embedder.js';
import { createLsaEmbedder } from './lsa.js';
import type { GraphEdge } from './graph.js';
import {
  loadAllCatalogEdges,
  loadAllCatalogNodes,
  loadCatalogEdges,
  loadCatalogNodes,
  type NodeKind,
} from '../catalog/read-model/search-reads.js';
import {
  createHybridRetriever,
  DEFAULT_RETRIEVAL_SETTINGS,
  type ComponentRanks,
  type ComponentScores,
  type HybridRetriever,
  type RetrievalDocument,
  type RetrievalHit,
  type RetrievalSettings,
} from './retriever.js';

/**
 * The search indexes of the catalog, built from the catalog's read model (nodes and edges),
 * then kept current from the change feed (changed catalog URIs are re-read, missing ones
 * removed; a resync or a truncated notice reloads everything). Updates are applied one batch
 * at a time, in order; a search sees the indexes between batches.
 *
 * Two indexes: the docs index (every node but code samples) is built at start-up and is what
 * readiness waits for; code samples (five in six nodes of a real doc site) have their own,
 * built at the first search that needs them, so they neither slow the start nor take memory
 * until asked for, and do not compete with prose for docs_search's candidates.
 */
export interface DocsSearchQuery {
  readonly query: string;
  /** Node labels (`Doc`, `Unit`, ...). */
  readonly types?: readonly string[] | undefined;
  readonly product?: string | undefined;
  readonly moniker?: string | undefined;
  readonly limit?: number | undefined;
}

export interface SearchHit {
  readonly uid: string;
  readonly uri: string;
  readonly type: string;
  readonly title: string;
  readonly summary: string;
  readonly product: string | null;
  readonly monikers: readonly string[];
  /** The page across versions (its site path without the version folder); null: none. */
  readonly page: string | null;
  /** Every version (moniker) the page exists in, newest released first. */
  readonly versions: readonly string[];
  /** The section of the page that answers best, with an excerpt; null for samples. */
  readonly section: SectionHit | null;
  readonly lastModified: string;
  readonly scores: ComponentScores;
  readonly ranks: ComponentRanks;
}

export interface CodeSampleQuery {
  readonly query: string;
  readonly language?: string | undefined;
  readonly limit?: number | undefined;
  /** Also samples that failed or skipped the compile check (default false). */
  readonly includeUnchecked?: boolean | undefined;
}

export interface CodeSampleHit {
  readonly uid: string;
  readonly uri: string;
  readonly title: string;
  readonly language: string;
  readonly code: string;
  /** true: type-checked clean; false: diagnostics; null: not checkable. */
  readonly compiled: boolean | null;
  readonly source: { readonly uid: string; readonly uri: string | null } | null;
  readonly scores: ComponentScores;
}

export interface SearchStatus {
  readonly ready: boolean;
  /** Documents indexed: the docs index, plus the code samples once their index is built. */
  readonly documents: number;
  readonly embedder: string;
}

export interface SearchService {
  /** Resolves once the first build finished; rejects (Unavailable) if it failed. */
  ready(): Promise<void>;
  /**
   * Both searches answer within the caller's scope (required): a node outside it is never a
   * hit, and a sample's source outside it has no URI, as if it did not exist.
   */
  search(scope: ReadScope, query: DocsSearchQuery): Promise<SearchHit[]>;
  codeSampleSearch(scope: ReadScope, query: CodeSampleQuery): Promise<CodeSampleHit[]>;
  status(): SearchStatus;
  /** Resolves once every change received so far is applied (tests, read-your-writes). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

export interface SearchServiceOptions {
  readonly db: Queryable;
  readonly changes: { onChange(listener: (signal: ChangeSignal) => void): () => void };
  readonly embedder: Embedder;
  /**
   * The code samples' index's embedder. Default: the same one when it does not learn from its
   * corpus, else a built-in LSA embedder of its own (a fitted model belongs to one corpus).
   */
  readonly sampleEmbedder?: Embedder;
  readonly logger: Logger;
  readonly settings?: RetrievalSettings;
  /** Refit the corpus-derived embedding once this share of documents changed (default 0.2). */
  readonly refitDrift?: number;
  /**
   * The first build waits for this (the process's catalog start-up ingest, applied), so the
   * index is not first built from a catalog still being ingested. Absent: build at once.
   */
  readonly buildAfter?: Promise<void>;
  /** How long a search waits for the first build before it answers UNAVAILABLE (30 s). */
  readonly readyWaitMs?: number;
}

/** Edge types weighted for proximity: containment and explicit relations count fully. */
const EDGE_WEIGHTS: Readonly<Record<string, number>> = {
  partOf: 1,
  relatedTo: 1,
  xref: 1,
  dependsOn: 0.7,
  prerequisiteOf: 0.7,
  teaches: 0.7,
  supersedes: 0.5,
  // A sample says little about which prose is relevant, and vice versa.
  exampleOf: 0.3,
};

export const MAX_SEARCH_LIMIT = 50;
const DEFAULT_LIMIT = 10;
const MAX_QUERY_LENGTH = 1000;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const toGraphEdges = (edges: readonly CatalogEdge[]): GraphEdge[] =>
  edges.map((edge) => ({ source: edge.sourceUid, target: edge.targetUid, type: edge.edgeType }));

/** Texts kept between two yields to the event loop (each deflates a page). */
const TEXT_SLICE = 128;

const checkQuery = (query: string): string => {
  const text = query.trim();
  if (text.length === 0) throw new InvalidArgument('query must not be empty');
  if (text.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgument(`query must be at most ${MAX_QUERY_LENGTH} characters`);
  }
  return text;
};

const checkLimit = (limit: number | undefined): number => {
  const value = limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_SEARCH_LIMIT) {
    throw new InvalidArgument(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  return value;
};

const searchableLabels = labelNames.filter((label) => labelSpec(label)?.source === 'catalog');

export const createSearchService = (options: SearchServiceOptions): SearchService => {
  const { db, logger } = options;
  const refitDrift = options.refitDrift ?? 0.2;
  const settings = options.settings ?? DEFAULT_RETRIEVAL_SETTINGS;
  const sampleEmbedder =
    options.sampleEmbedder ?? (options.embedder.fit ? createLsaEmbedder() : options.embedder);
  const retrievers: Readonly<Record<NodeKind, HybridRetriever>> = {
    docs: createHybridRetriever({
      embedder: options.embedder,
      settings,
      edgeWeights: EDGE_WEIGHTS,
    }),
    samples: createHybridRetriever({
      embedder: sampleEmbedder,
      settings,
      edgeWeights: EDGE_WEIGHTS,
    }),
  };
  const retriever = retrievers.docs;
  const kindOf = (label: string): NodeKind => (label === 'CodeSample' ? 'samples' : 'docs');
  const store = createEntryStore();
  const document = (node: CatalogNode): RetrievalDocument => ({
    ...toRetrievalDocument(node),
    secondary: store.role(node.uid) === 'older',
    // A page's passages are its sections, so a hit's best section comes from the index.
    ...(node.label === 'CodeSample'
      ? {}
      : { passages: { field: 'body', offsets: passageOffsets(node.sections) } }),
  });
  let closed = false;
  // Every index mutation runs on this chain, so batches apply in order and never interleave.
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): Promise<void> => {
    const next = chain.then(async () => {
      if (!closed) await work();
    });
    chain = next.catch((error: unknown) => {
      logger.error({ err: error }, 'search index update failed; next change or resync retries');
    });
    return next;
  };

  const built: Record<NodeKind, boolean> = { docs: false, samples: false };
  // Whether the samples' index was asked for (then it is built and kept current).
  let samplesWanted = false;

  const reloadKind = async (kind: NodeKind): Promise<void> => {
    const started = Date.now();
    const [nodes, edges] = await Promise.all([
      loadAllCatalogNodes(db, kind),
      loadAllCatalogEdges(db),
    ]);
    const present = new Set(nodes.map((node) => node.uid));
    for (const [uid, entry] of store.entries()) {
      if (kindOf(entry.label) === kind && !present.has(uid)) store.delete(uid);
    }
    for (const node of nodes) store.set(node.uid, node);
    const own = edges.filter((edge) => edge.sample === (kind === 'samples'));
    const rebuilt = retrievers[kind].rebuild(nodes.map(document), toGraphEdges(own));
    // Awaited below; meanwhile the texts are kept, in slices that let searches through.
    rebuilt.catch(() => undefined);
    for (let i = 0; i < nodes.length; i += 1) {
      const node = nodes[i] as CatalogNode;
      store.setText(node.uid, node);
      if (i % TEXT_SLICE === TEXT_SLICE - 1) await yieldToEventLoop();
    }
    await rebuilt;
    built[kind] = true;
    logger.info(
      {
        index: kind,
        documents: nodes.length,
        edges: own.length,
        ms: Date.now() - started,
        embedder: retrievers[kind].embedderName,
        lexical: retrievers[kind].lexicalStats(),
      },
      'search index built',
    );
  };

  const reloadAll = async (): Promise<void> => {
    await reloadKind('docs');
    if (samplesWanted) await reloadKind('samples');
    else {
      // Not built until asked for: forget any samples folded in by a change meanwhile.
      for (const [uid, entry] of store.entries()) {
        if (kindOf(entry.label) === 'samples') store.delete(uid);
      }
      built.samples = false;
    }
  };

  const reload = async (uids: readonly string[]): Promise<void> => {
    if (!built.docs) {
      await reloadAll();
      return;
    }
    const [nodes, edges] = await Promise.all([
      loadCatalogNodes(db, uids),
      loadCatalogEdges(db, uids),
    ]);
    const found = new Set(nodes.map((node) => node.uid));
    const gone = uids.filter((uid) => !found.has(uid));
    // Every version of a page a change touches may stand for it differently afterwards.
    const versions = new Set<string>();
    for (const uid of uids) for (const version of store.versions(uid)) versions.add(version);
    for (const kind of ['docs', 'samples'] as const) retrievers[kind].remove(gone);
    for (const uid of gone) store.delete(uid);
    for (const kind of ['docs', 'samples'] as const) {
      const mine = nodes.filter((node) => kindOf(node.label) === kind);
      // A node that changed kind leaves the other index.
      const other = retrievers[kind === 'docs' ? 'samples' : 'docs'];
      other.remove(mine.map((node) => node.uid));
      if (!built[kind]) continue;
      for (const node of mine) {
        store.set(node.uid, node);
        store.setText(node.uid, node);
      }
      const own = edges.filter((edge) => edge.sample === (kind === 'samples'));
      await retrievers[kind].upsert(mine.map(document), toGraphEdges(own));
    }
    for (const node of nodes) if (!built[kindOf(node.label)]) store.delete(node.uid);
    for (const uid of found) for (const version of store.versions(uid)) versions.add(version);
    for (const uid of versions) {
      const entry = store.get(uid);
      if (!entry || !built[kindOf(entry.label)]) continue;
      retrievers[kindOf(entry.label)].setSecondary([uid], store.role(uid) === 'older');
    }
    for (const kind of ['docs', 'samples'] as const) {
      const embedder = kind === 'docs' ? options.embedder : sampleEmbedder;
      if (built[kind] && embedder.fit && retrievers[kind].drift() >= refitDrift) {
        await reloadKind(kind);
      }
    }
  };

  // Changed uids waiting for the next update; coalesced while one runs.
  let pending = new Set<string>();
  let fullPending = false;
  const schedule = (): void => {
    void enqueue(async () => {
      if (fullPending) {
        fullPending = false;
        pending = new Set();
        await reloadAll();
        return;
      }
      if (pending.size === 0) return;
      const uids = [...pending];
      pending = new Set();
      await reload(uids);
    });
  };

  // Until the first build starts, changes need no handling: that build reads everything.
  let building = options.buildAfter === undefined;
  const unsubscribe = options.changes.onChange((signal) => {
    if (!building) return;
    if (signal.kind === 'resync') {
      fullPending = true;
    } else if (signal.notice.truncated) {
      const { collections } = signal.notice;
      if (collections.length === 0 || collections.some(isCatalogCollection)) fullPending = true;
      else return;
    } else {
      const uids = signal.notice.uris.flatMap((uri) => catalogUidOf(uri) ?? []);
      if (uids.length === 0) return;
      for (const uid of uids) pending.add(uid);
    }
    schedule();
  });

  // The first build; if it fails (read model not there yet), the next search or change retries.
  let attempt = (options.buildAfter ?? Promise.resolve()).then(() => {
    building = true;
    return enqueue(reloadAll);
  });
  attempt.catch(() => undefined);
  const isBuilt = (): boolean => built.docs;
  const readyWaitMs = options.readyWaitMs ?? 30_000;

  /**
   * Waits for a build, at most `readyWaitMs`: "late" when it is still running then; a
   * failed build rejects with its error.
   */
  const within = async (build: Promise<void>): Promise<'done' | 'late'> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => {
        resolve('late');
      }, readyWaitMs);
    });
    try {
      return await Promise.race([build.then(() => 'done' as const), late]);
    } finally {
      clearTimeout(timer);
    }
  };
  const waited = (): string => `waited ${String(Math.round(readyWaitMs / 1000))} s`;

  const whenReady = async (): Promise<void> => {
    if (isBuilt()) return;
    try {
      if ((await within(attempt)) === 'late' && !isBuilt()) {
        throw new Unavailable(
          `the search index is still being built (the catalog is being ingested at start-up); ${waited()}, retry shortly`,
        );
      }
    } catch (error) {
      if (error instanceof Unavailable) throw error;
      if (isBuilt()) return;
      attempt = enqueue(reloadAll);
      attempt.catch(() => undefined);
      throw new Unavailable(
        `the search index is not built (catalog read model unreadable: ${(error as Error).message}); retrying`,
      );
    }
  };

  // The samples' index: built by the first search that needs it, kept current from then on.
  let samplesAttempt: Promise<void> | undefined;
  // A function, so the compiler does not take its value as fixed across awaits.
  const samplesBuilt = (): boolean => built.samples;
  const samplesReady = async (): Promise<void> => {
    await whenReady();
    if (samplesBuilt()) return;
    let current = samplesAttempt;
    if (!current) {
      samplesWanted = true;
      const started = enqueue(() => reloadKind('samples'));
      current = samplesAttempt = started;
      // A failed build is retried by the next search that needs it.
      started.catch(() => {
        if (samplesAttempt === started) samplesAttempt = undefined;
      });
    }
    try {
      if ((await within(current)) === 'late' && !samplesBuilt()) {
        throw new Unavailable(
          `the code samples' index is being built (the first search of code samples builds it); ${waited()}, retry shortly`,
        );
      }
    } catch (error) {
      if (error instanceof Unavailable) throw error;
      if (samplesBuilt()) return;
      throw new Unavailable(
        `the code samples' index is not built (catalog read model unreadable: ${(error as Error).message}); retrying`,
      );
    }
  };

  const scopeFilter =
    (scope: ReadScope): ((entry: Entry) => boolean) =>
    (entry) =>
      mayRead(scope, labelSpec(entry.label)?.resourceType ?? '', entry.product);

  /**
   * One hit per page: without a moniker, a page is searched in the version that stands for it
   * (the newest released one; see `EntryStore.role`), so versions never crowd each other out
   * of the limit; with a moniker, in that version. A page whose versions differ in label or
   * product stands in the newest version the caller may find.
   */
  const versionFilter = (
    eligible: (id: string) => boolean,
    moniker: string | undefined,
  ): ((id: string) => boolean) => {
    if (moniker !== undefined) return eligible;
    const preferred = new Map<string, string | undefined>();
    return (id) => {
      if (!eligible(id)) return false;
      const role = store.role(id);
      if (role !== 'mixed') return role !== 'older';
      const key = (store.get(id) as Entry).key;
      if (!preferred.has(key)) {
        const versions = [...store.versions(id)].filter(eligible);
        preferred.set(
          key,
          preferredVersion(
            versions.map((uid) => ({ id: uid, monikers: store.get(uid)?.monikers ?? [] })),
          ),
        );
      }
      return preferred.get(key) === id;
    };
  };

  return {
    ready: whenReady,
    search: async (scope, query) => {
      const text = checkQuery(query.query);
      const limit = checkLimit(query.limit);
      const unknown = (query.types ?? []).filter((type) => !searchableLabels.includes(type));
      if (unknown.length > 0) {
        throw new InvalidArgument(
          `types has unknown labels ${unknown.join(', ')}; allowed: ${searchableLabels.join(', ')}`,
        );
      }
      if (query.moniker !== undefined && !MONIKER_PATTERN.test(query.moniker)) {
        throw new InvalidArgument(`moniker must be ${MONIKER_HELP}`);
      }
      await whenReady();
      // Code samples are found by code_sample_search; here only when asked for by type.
      const types = new Set(
        query.types && query.types.length > 0
          ? query.types
          : searchableLabels.filter((label) => label !== 'CodeSample'),
      );
      const inScope = scopeFilter(scope);
      const eligible = (id: string): boolean => {
        const entry = store.get(id);
        return (
          entry !== undefined &&
          types.has(entry.label) &&
          (query.product === undefined || entry.product === query.product) &&
          (query.moniker === undefined || entry.monikers.includes(query.moniker)) &&
          inScope(entry)
        );
      };
      const filter = versionFilter(eligible, query.moniker);
      const ask = { text, limit, filter, all: query.moniker !== undefined };
      const wantsSamples = types.has('CodeSample');
      if (wantsSamples) await samplesReady();
      const lists = await Promise.all([
        types.size > (wantsSamples ? 1 : 0) ? retrievers.docs.search(ask) : [],
        wantsSamples ? retrievers.samples.search(ask) : [],
      ]);
      const found: RetrievalHit[] =
        lists[1].length === 0
          ? lists[0]
          : lists[0].length === 0
            ? lists[1]
            : [...lists[0], ...lists[1]].sort((a, b) => b.scores.fused - a.scores.fused);
      const weights = retriever.termWeights(text);
      const analyzeText = (value: string): string[] => retriever.analyze(value);
      return found.slice(0, limit).flatMap((hit) => {
        const entry = store.get(hit.id);
        if (!entry) return [];
        const versions = store.pageMonikers(hit.id, inScope);
        const section =
          entry.label === 'CodeSample'
            ? undefined
            : bestSection(
                { title: entry.title, body: store.pageText(hit.id), sections: entry.sections },
                weights,
                analyzeText,
                retriever.passageCounts(hit.id, [...weights.keys()]),
              );
        return [
          {
            uid: hit.id,
            uri: nodeUri(entry.label, hit.id),
            type: entry.label,
            title: entry.title,
            summary: entry.summary,
            product: entry.product,
            monikers: entry.monikers,
            page: entry.page,
            versions,
            section: section ?? null,
            lastModified: entry.lastModified,
            scores: hit.scores,
            ranks: hit.ranks,
          },
        ];
      });
    },
    codeSampleSearch: async (scope, query) => {
      const text = checkQuery(query.query);
      const limit = checkLimit(query.limit);
      await samplesReady();
      const language = query.language?.trim().toLowerCase();
      const inScope = scopeFilter(scope);
      const eligible = (id: string): boolean => {
        const entry = store.get(id);
        if (entry?.label !== 'CodeSample' || !inScope(entry)) return false;
        const tag = typeof entry.attributes.language === 'string' ? entry.attributes.language : '';
        if (language && tag.toLowerCase() !== language) return false;
        // A sample known not to compile is left out unless asked for; unchecked ones count.
        return query.includeUnchecked === true || entry.attributes.compiled !== false;
      };
      const filter = versionFilter(eligible, undefined);
      const hits = await retrievers.samples.search({ text, limit, filter });
      return hits.flatMap((hit) => {
        const entry = store.get(hit.id);
        if (!entry) return [];
        const sourceUid =
          typeof entry.attributes.sourceUid === 'string' ? entry.attributes.sourceUid : undefined;
        const known = sourceUid === undefined ? undefined : store.get(sourceUid);
        // The sample names its source (its own attribute); one the scope hides has no URI,
        // exactly like one the catalog does not have.
        const source = known && inScope(known) ? known : undefined;
        const compiled = entry.attributes.compiled;
        return [
          {
            uid: hit.id,
            uri: nodeUri(entry.label, hit.id),
            title: entry.title,
            language:
              typeof entry.attributes.language === 'string' ? entry.attributes.language : '',
            code: store.text(hit.id),
            compiled: typeof compiled === 'boolean' ? compiled : null,
            source:
              sourceUid === undefined
                ? null
                : { uid: sourceUid, uri: source ? nodeUri(source.label, sourceUid) : null },
            scores: hit.scores,
          },
        ];
      });
    },
    status: () => ({
      ready: built.docs,
      documents: retrievers.docs.size + retrievers.samples.size,
      embedder: retriever.embedderName,
    }),
    settled: async () => {
      // Wait until the chain stops growing (an update may enqueue a follow-up).
      let current: Promise<void>;
      do {
        current = chain;
        await current;
      } while (current !== chain);
    },
    close: async () => {
      unsubscribe();
      closed = true;
      await chain;
    },
  };
};
