import type { ReadScope } from '../access/grants.js';
import { InvalidArgument } from '../runtime/errors.js';
import { MONIKER_HELP, MONIKER_PATTERN } from '../catalog/vocabulary.js';
import { nodeUri } from './documents.js';
import { bestSection } from './pages.js';
import type { RetrievalHit } from './retriever.js';
import {
  checkLimit,
  checkQuery,
  scopeFilter,
  searchableLabels,
  versionFilter,
} from './search-filters.js';
import type { SearchIndexes } from './search-indexes.js';
import type { SearchReadiness } from './search-readiness.js';
import { partitionScope } from './search-partitions.js';
import type { CodeSampleHit, CodeSampleQuery, DocsSearchQuery, SearchHit } from './service.js';

/** The query's checked text and limit; its types and moniker refused when unknown. */
const checkDocsQuery = (query: DocsSearchQuery): { text: string; limit: number } => {
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
  return { text, limit };
};

/** docs_search: the docs' index (and the samples', when asked for by type), within the scope. */
export const searchDocs = async (
  indexes: SearchIndexes,
  readiness: SearchReadiness,
  scope: ReadScope,
  query: DocsSearchQuery,
): Promise<SearchHit[]> => {
  const { text, limit } = checkDocsQuery(query);
  await readiness.whenReady();
  const { store, retrievers } = indexes;
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
  const filter = versionFilter(store, eligible, query.moniker);
  // A restricted caller's scores and sections come from what it may read alone.
  const partitions = partitionScope(scope);
  const ask = { text, limit, filter, all: query.moniker !== undefined, partitions };
  const wantsSamples = types.has('CodeSample');
  if (wantsSamples) await readiness.samplesReady();
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
  const retriever = retrievers.docs;
  const weights = retriever.termWeights(text, partitions);
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
};

/** code_sample_search: the samples' index, within the scope. */
export const searchCodeSamples = async (
  indexes: SearchIndexes,
  readiness: SearchReadiness,
  scope: ReadScope,
  query: CodeSampleQuery,
): Promise<CodeSampleHit[]> => {
  const text = checkQuery(query.query);
  const limit = checkLimit(query.limit);
  await readiness.samplesReady();
  const { store, retrievers } = indexes;
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
  const filter = versionFilter(store, eligible, undefined);
  const partitions = partitionScope(scope);
  const hits = await retrievers.samples.search({ text, limit, filter, partitions });
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
        language: typeof entry.attributes.language === 'string' ? entry.attributes.language : '',
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
};
