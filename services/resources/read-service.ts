import { readCatalogResource, uidsWithHiddenEdges } from '../catalog/read-model/queries.js';
import { readNetworkResource } from '../networks/read-model/queries.js';
import { getRequest } from '../requests/read-model/queries.js';
import { REQUEST_RESOURCE_TYPE, requestDocument } from '../requests/read-model/state.js';
import {
  collectionUri,
  getResource,
  listResources,
  resourceContentHash,
  resourceUri,
  type ListResourcesOptions,
  type ResourceEntry,
} from '../../projections/resources.js';
import { isUnrestricted, mayReadType, type ReadScope } from '../access/grants.js';
import { NODE_LABELS } from '../catalog/vocabulary.js';
import type { Queryable } from '../database/queryable.js';

export { collectionUri, type ResourceEntry };

/**
 * The MCP resources (`cogitave://{type}/{id}`) as a caller reads them: the resource index and
 * each read model's documents. Every method takes the caller's scope (required); what it
 * hides is absent: not listed, not completed, read as not found.
 */

/**
 * Reads the JSON document of one resource from its projection, within the scope (a catalog
 * node's edges to nodes outside it are left out). Undefined when there is no such resource
 * or the scope hides it.
 */
export type ResourceReader = (db: Queryable, scope: ReadScope, id: string) => Promise<unknown>;

/** Resource type → reader. Each read model plugs in with one entry. */
export type ResourceReaders = ReadonlyMap<string, ResourceReader>;

const readRequest: ResourceReader = async (db, scope, id) => {
  const state = await getRequest(db, scope, id);
  return state ? requestDocument(state) : undefined;
};

const readCatalog =
  (type: string): ResourceReader =>
  async (db, scope, id) =>
    (await readCatalogResource(db, scope, type, id))?.document;

const readNetwork: ResourceReader = async (db, scope, id) =>
  mayReadType(scope, 'network') ? (await readNetworkResource(db, id))?.document : undefined;

/** Every resource type served and the reader of its documents. A read model adds one line. */
export const defaultResourceReaders = (): ResourceReaders =>
  new Map<string, ResourceReader>([
    [REQUEST_RESOURCE_TYPE, readRequest],
    ...NODE_LABELS.filter((spec) => spec.source === 'catalog').map(
      (spec): [string, ResourceReader] => [spec.resourceType, readCatalog(spec.resourceType)],
    ),
    ['network', readNetwork],
  ]);

export interface ResourceDocument {
  readonly document: unknown;
  /** sha256 of the canonical JSON of `document`: what is served, as the scope sees it. */
  readonly contentHash: string;
  readonly lastModified: string | null;
}

export interface ResourcesReadService {
  /** Every resource type that has a reader. */
  readonly types: readonly string[];
  /**
   * A page of the index in URI order, the scope's rows only; each `contentHash` is the hash of
   * the document `read` serves the same scope.
   */
  list(scope: ReadScope, options: ListResourcesOptions): Promise<ResourceEntry[]>;
  /** The index row of a URI; undefined when absent or hidden. */
  entry(scope: ReadScope, uri: string): Promise<ResourceEntry | undefined>;
  /** The document of `cogitave://{type}/{id}`; undefined when absent or hidden. */
  read(scope: ReadScope, type: string, id: string): Promise<ResourceDocument | undefined>;
}

export const createResourcesReadService = (deps: {
  readonly db: Queryable;
  readonly readers?: ResourceReaders;
}): ResourcesReadService => {
  const { db } = deps;
  const readers = deps.readers ?? defaultResourceReaders();
  const catalogTypes = new Set(
    NODE_LABELS.filter((spec) => spec.source === 'catalog').map((spec) => spec.resourceType),
  );
  const idOf = (entry: ResourceEntry): string =>
    decodeURIComponent(entry.uri.slice(collectionUri(entry.type).length));

  const read = async (
    scope: ReadScope,
    type: string,
    id: string,
  ): Promise<ResourceDocument | undefined> => {
    const reader = readers.get(type);
    if (!reader) return undefined;
    const [entry, document] = await Promise.all([
      getResource(db, scope, resourceUri(type, id)),
      reader(db, scope, id),
    ]);
    if (document === undefined) return undefined;
    // The hash of what is served (not of the index row, which a concurrent commit may move on).
    return {
      document,
      contentHash: resourceContentHash(document),
      lastModified: entry?.lastModified ?? null,
    };
  };

  /**
   * The index hashes each document as the unrestricted reader sees it. A catalog node with an
   * edge outside the scope is served without that edge, so its entry gets the hash of what the
   * scope reads; every other entry's document is the same for every scope that lists it.
   */
  const withScopedHashes = async (
    scope: ReadScope,
    entries: ResourceEntry[],
  ): Promise<ResourceEntry[]> => {
    if (isUnrestricted(scope)) return entries;
    const catalog = entries.filter((entry) => catalogTypes.has(entry.type));
    const differ = await uidsWithHiddenEdges(db, scope, catalog.map(idOf));
    if (differ.size === 0) return entries;
    return Promise.all(
      entries.map(async (entry) => {
        if (!catalogTypes.has(entry.type) || !differ.has(idOf(entry))) return entry;
        const served = await read(scope, entry.type, idOf(entry));
        return served ? { ...entry, contentHash: served.contentHash } : entry;
      }),
    );
  };

  return {
    types: [...readers.keys()],
    list: async (scope, options) =>
      withScopedHashes(scope, await listResources(db, scope, options)),
    entry: async (scope, uri) => {
      const found = await getResource(db, scope, uri);
      return found ? (await withScopedHashes(scope, [found]))[0] : undefined;
    },
    read,
  };
};
