import { mayRead, type ReadScope } from '../access/grants.js';
import { InvalidArgument } from '../runtime/errors.js';
import { labelNames, labelSpec } from '../catalog/vocabulary.js';
import type { Entry, EntryStore } from './entries.js';
import { preferredVersion } from './pages.js';

export const MAX_SEARCH_LIMIT = 50;
const DEFAULT_LIMIT = 10;
const MAX_QUERY_LENGTH = 1000;

export const searchableLabels = labelNames.filter(
  (label) => labelSpec(label)?.source === 'catalog',
);

export const checkQuery = (query: string): string => {
  const text = query.trim();
  if (text.length === 0) throw new InvalidArgument('query must not be empty');
  if (text.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgument(`query must be at most ${MAX_QUERY_LENGTH} characters`);
  }
  return text;
};

export const checkLimit = (limit: number | undefined): number => {
  const value = limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(value) || value < 1 || value > MAX_SEARCH_LIMIT) {
    throw new InvalidArgument(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
  }
  return value;
};

export const scopeFilter =
  (scope: ReadScope): ((entry: Entry) => boolean) =>
  (entry) =>
    mayRead(scope, labelSpec(entry.label)?.resourceType ?? '', entry.product);

/**
 * One hit per page: without a moniker, a page is searched in the version that stands for it
 * (the newest released one; see `EntryStore.role`), so versions never crowd each other out
 * of the limit; with a moniker, in that version. A page whose versions differ in label or
 * product stands in the newest version the caller may find.
 */
export const versionFilter = (
  store: EntryStore,
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
