import type { ChangeSignal } from '../../projections/change-feed.js';
import type { Queryable } from '../database/queryable.js';
import { mayRead, type ReadScope } from '../access/grants.js';
import { InvalidArgument, Unavailable } from '../runtime/errors.js';
import type { Logger } from '../runtime/logger.js';
import { compareMonikers } from '../catalog/site.js';
import { labelNames, labelSpec, MONIKER_HELP, MONIKER_PATTERN } from '../catalog/vocabulary.js';
import { bestSection, preferredVersion, type SectionHit } from './pages.js';
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
} from './read-model.js';
import {
  createHybridRetriever,
  DEFAULT_RETRIEVAL_SETTINGS,
  type ComponentRanks,
  type ComponentScores,
  type HybridRetriever,
  type RetrievalHit,
  type RetrievalSettings,
} from './retriever.js';

/**
 * The search indexes of the catalog, built from `read_model.catalog_nodes` / `catalog_edges`,
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

interface Meta {
  readonly label: string;
  readonly title: string;
  readonly summary: string;
  readonly product: string | null;
  readonly monikers: readonly string[];
  readonly lastModified: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** A sample's code; a page's Markdown (for its best section and excerpt). */
  readonly body: string;
  /** The page across versions (null: the node is its own page). */
  readonly page: string | null;
  readonly sections: CatalogNode['sections'];
}

const toGraphEdges = (edges: readonly CatalogEdge[]): GraphEdge[] =>
  edges.map((edge) => ({ source: edge.sourceUid, target: edge.targetUid, type: edge.edgeType }));

const toMeta = (node: CatalogNode): Meta => ({
  label: node.label,
  title: node.title,
  summary: node.summary,
  product: node.product,
  monikers: node.monikers,
  lastModified: node.lastModified,
  attributes: node.attributes,
  body: node.body,
  page: node.page,
  sections: node.sections,
});

/** The key the versions of one page share: its version-free path within its source. */
const pageKey = (uid: string, m: Meta): string => {
  if (m.page === null) return `uid:${uid}`;
  // A sample across versions: the same page and the same place in it.
  if (m.label === 'CodeSample') return `sample:${m.page}#${uid.slice(uid.lastIndexOf('.sample-'))}`;
  return `page:${m.page}`;
};

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
  const meta = new Map<string, Meta>();
  // Page key → the uids of its versions.
  const pages = new Map<string, Set<string>>();
  const setMeta = (uid: string, m: Meta): void => {
    const before = meta.get(uid);
    if (before) pages.get(pageKey(uid, before))?.delete(uid);
    meta.set(uid, m);
    const key = pageKey(uid, m);
    let set = pages.get(key);
    if (!set) pages.set(key, (set = new Set()));
    set.add(uid);
  };
  const deleteMeta = (uid: string): void => {
    const before = meta.get(uid);
    if (before) pages.get(pageKey(uid, before))?.delete(uid);
    meta.delete(uid);
  };
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
    for (const [uid, m] of meta) if (kindOf(m.label) === kind) deleteMeta(uid);
    for (const node of nodes) setMeta(node.uid, toMeta(node));
    const own = edges.filter((edge) => edge.sample === (kind === 'samples'));
    await retrievers[kind].rebuild(nodes.map(toRetrievalDocument), toGraphEdges(own));
    built[kind] = true;
    logger.info(
      {
        index: kind,
        documents: nodes.length,
        edges: own.length,
        ms: Date.now() - started,
        embedder: retrievers[kind].embedderName,
      },
      'search index built',
    );
  };

  const reloadAll = async (): Promise<void> => {
    await reloadKind('docs');
    if (samplesWanted) await reloadKind('samples');
    else {
      // Not built until asked for: forget any samples folded in by a change meanwhile.
      for (const [uid, m] of meta) if (kindOf(m.label) === 'samples') deleteMeta(uid);
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
    for (const kind of ['docs', 'samples'] as const) retrievers[kind].remove(gone);
    for (const uid of gone) deleteMeta(uid);
    for (const kind of ['docs', 'samples'] as const) {
      const mine = nodes.filter((node) => kindOf(node.label) === kind);
      // A node that changed kind leaves the other index.
      const other = retrievers[kind === 'docs' ? 'samples' : 'docs'];
      other.remove(mine.map((node) => node.uid));
      if (!built[kind]) continue;
      for (const node of mine) setMeta(node.uid, toMeta(node));
      const own = edges.filter((edge) => edge.sample === (kind === 'samples'));
      await retrievers[kind].upsert(mine.map(toRetrievalDocument), toGraphEdges(own));
    }
    for (const node of nodes) if (!built[kindOf(node.label)]) deleteMeta(node.uid);
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
    (scope: ReadScope): ((m: Meta) => boolean) =>
    (m) =>
      mayRead(scope, labelSpec(m.label)?.resourceType ?? '', m.product);

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
      const filter = (id: string): boolean => {
        const m = meta.get(id);
        return (
          m !== undefined &&
          types.has(m.label) &&
          (query.product === undefined || m.product === query.product) &&
          (query.moniker === undefined || m.monikers.includes(query.moniker)) &&
          inScope(m)
        );
      };
      // Versions of a page fold into one hit, so ask for enough to fill the limit after that.
      const ask = { text, limit: Math.min(limit * 4, 200), filter };
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
      const groups = new Map<string, typeof found>();
      for (const hit of found) {
        const m = meta.get(hit.id);
        if (!m) continue;
        const key = pageKey(hit.id, m);
        groups.set(key, [...(groups.get(key) ?? []), hit]);
      }
      const weights = retriever.termWeights(text);
      const analyzeText = (value: string): string[] => retriever.analyze(value);
      return [...groups.entries()].slice(0, limit).flatMap(([key, members]) => {
        const best = members[0];
        if (!best) return [];
        const chosen =
          preferredVersion(
            members.map((member) => ({
              id: member.id,
              monikers: meta.get(member.id)?.monikers ?? [],
            })),
          ) ?? best.id;
        const m = meta.get(chosen);
        if (!m) return [];
        const hit = members.find((member) => member.id === chosen) ?? best;
        const versions = [...(pages.get(key) ?? [chosen])]
          .filter((uid) => {
            const other = meta.get(uid);
            return other !== undefined && inScope(other);
          })
          .flatMap((uid) => meta.get(uid)?.monikers ?? [])
          .filter((moniker, index, all) => all.indexOf(moniker) === index)
          .sort(compareMonikers);
        const section =
          m.label === 'CodeSample'
            ? undefined
            : bestSection(
                { title: m.title, body: m.body, sections: m.sections },
                weights,
                analyzeText,
              );
        return [
          {
            uid: chosen,
            uri: nodeUri(m.label, chosen),
            type: m.label,
            title: m.title,
            summary: m.summary,
            product: m.product,
            monikers: m.monikers,
            page: m.page,
            versions,
            section: section ?? null,
            lastModified: m.lastModified,
            scores: { ...hit.scores, fused: best.scores.fused },
            ranks: best.ranks,
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
      const filter = (id: string): boolean => {
        const m = meta.get(id);
        if (m?.label !== 'CodeSample' || !inScope(m)) return false;
        const tag = typeof m.attributes.language === 'string' ? m.attributes.language : '';
        if (language && tag.toLowerCase() !== language) return false;
        // A sample known not to compile is left out unless asked for; unchecked ones count.
        return query.includeUnchecked === true || m.attributes.compiled !== false;
      };
      const hits = await retrievers.samples.search({ text, limit, filter });
      return hits.flatMap((hit) => {
        const m = meta.get(hit.id);
        if (!m) return [];
        const sourceUid =
          typeof m.attributes.sourceUid === 'string' ? m.attributes.sourceUid : undefined;
        const known = sourceUid === undefined ? undefined : meta.get(sourceUid);
        // The sample names its source (its own attribute); one the scope hides has no URI,
        // exactly like one the catalog does not have.
        const source = known && inScope(known) ? known : undefined;
        const compiled = m.attributes.compiled;
        return [
          {
            uid: hit.id,
            uri: nodeUri(m.label, hit.id),
            title: m.title,
            language: typeof m.attributes.language === 'string' ? m.attributes.language : '',
            code: m.body,
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
