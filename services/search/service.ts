import type { ChangeSignal } from '../../projections/change-feed.js';
import type { Queryable } from '../database/queryable.js';
import type { ReadScope } from '../access/grants.js';
import type { Logger } from '../runtime/logger.js';
import type { Embedder } from './embedder.js';
import { createLsaEmbedder } from './lsa.js';
import type { SectionHit } from './pages.js';
import {
  createHybridRetriever,
  DEFAULT_RETRIEVAL_SETTINGS,
  type ComponentRanks,
  type ComponentScores,
  type RetrievalSettings,
} from './retriever.js';
import { searchCodeSamples, searchDocs } from './search-answers.js';
import { followChanges } from './search-changes.js';
import { SearchIndexes } from './search-indexes.js';
import { SearchReadiness } from './search-readiness.js';

export { MAX_SEARCH_LIMIT } from './search-filters.js';

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

/**
 * The service: its indexes (`search-indexes.ts`), kept current from the change feed
 * (`search-changes.ts`), searched once ready (`search-readiness.ts`) and answered as hits
 * (`search-answers.ts`).
 */
export const createSearchService = (options: SearchServiceOptions): SearchService => {
  const settings = options.settings ?? DEFAULT_RETRIEVAL_SETTINGS;
  const sampleEmbedder =
    options.sampleEmbedder ?? (options.embedder.fit ? createLsaEmbedder() : options.embedder);
  const indexes = new SearchIndexes({
    db: options.db,
    logger: options.logger,
    retrievers: {
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
    },
    embedders: { docs: options.embedder, samples: sampleEmbedder },
    refitDrift: options.refitDrift ?? 0.2,
  });
  const changes = followChanges(indexes, options.changes, options.buildAfter === undefined);
  // The first build waits for the start-up ingest when there is one.
  const firstBuild = (options.buildAfter ?? Promise.resolve()).then(() => {
    changes.start();
    return indexes.enqueue(() => indexes.reloadAll());
  });
  const readiness = new SearchReadiness(indexes, firstBuild, options.readyWaitMs ?? 30_000);
  const { retrievers } = indexes;

  return {
    ready: () => readiness.whenReady(),
    search: (scope, query) => searchDocs(indexes, readiness, scope, query),
    codeSampleSearch: (scope, query) => searchCodeSamples(indexes, readiness, scope, query),
    status: () => ({
      ready: indexes.built.docs,
      documents: retrievers.docs.size + retrievers.samples.size,
      embedder: retrievers.docs.embedderName,
    }),
    settled: () => indexes.settled(),
    close: async () => {
      changes.unsubscribe();
      await indexes.close();
    },
  };
};
