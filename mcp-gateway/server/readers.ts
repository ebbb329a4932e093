import type { Queryable } from '../../services/database/queryable.js';

/**
 * Reads the JSON document of one resource (`cogitave://{type}/{id}`) from its projection.
 * Undefined when the projection has no such resource. The document must be the one whose
 * hash the resource index stores, so `contentHash` in `_meta` describes what is served.
 */
export type ResourceReader = (db: Queryable, id: string) => Promise<unknown>;

/** Resource type → reader. Each read model plugs in with one entry. */
export type ResourceReaders = ReadonlyMap<string, ResourceReader>;
