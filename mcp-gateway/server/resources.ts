import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import {
  collectionUri,
  getResource,
  listResources,
  resourceContentHash,
  type ResourceEntry,
} from '../../projections/resources.js';
import type { Queryable } from '../../services/database/queryable.js';
import { NODE_LABELS, RESOURCE_URI_TEMPLATE } from '../../services/catalog/vocabulary.js';
import type { Caller } from '../registry.js';
import { mayRead, mayReadType, readScopeOf } from '../../services/access/grants.js';
import { typeIcon } from './icons.js';
import type { ResourceReaders } from './readers.js';

/** Every resource type of the URI space: the catalog vocabulary's, plus agent-built networks. */
export const RESOURCE_TYPES: readonly string[] = [
  ...new Set([...NODE_LABELS.map((spec) => spec.resourceType), 'network']),
];

const TYPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(NODE_LABELS.map((spec) => [spec.resourceType, spec.description])),
  network: 'An agent-built named graph of nodes and edges (network_* tools).',
};

/** A JSON-RPC -32602: the request's parameters are wrong; the message says how. */
export const invalidParams = (message: string): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, message);

export const MIME_JSON = 'application/json';
/** `resources/list` and collection reads: at most this many entries per page. */
export const PAGE_SIZE = 100;
/** The `_meta` key a `resources/list` request carries its filter under (first page only). */
export const LIST_FILTER_META_KEY = 'cogitave/filter';

export type ParsedUri =
  | { readonly kind: 'collection'; readonly type: string; readonly uri: string }
  | { readonly kind: 'item'; readonly type: string; readonly id: string; readonly uri: string };

/** `cogitave://request/req-1` → item; `cogitave://request/` → collection; else undefined. */
export const parseResourceUri = (uri: string): ParsedUri | undefined => {
  const match = /^cogitave:\/\/([a-z][a-z0-9-]*)\/([^/?#]*)$/.exec(uri);
  if (!match) return undefined;
  const [, type = '', encodedId = ''] = match;
  if (encodedId === '') return { kind: 'collection', type, uri };
  try {
    return { kind: 'item', type, id: decodeURIComponent(encodedId), uri };
  } catch {
    return undefined;
  }
};

interface ListFilter {
  readonly type?: string | undefined;
  readonly product?: string | undefined;
}

interface CursorState extends ListFilter {
  /** Last URI scanned (exclusive start of the next page). */
  readonly after: string;
}

const encodeCursor = (state: CursorState): string =>
  Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');

const decodeCursor = (cursor: string): CursorState => {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as CursorState).after === 'string'
    )
      return value as CursorState;
  } catch {
    // Falls through to the error below.
  }
  throw invalidParams(
    'Invalid cursor: pass back the nextCursor of a previous resources/list result unchanged',
  );
};

const optionalString = (value: unknown, name: string): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '')
    throw invalidParams(`${LIST_FILTER_META_KEY}.${name} must be a non-empty string`);
  return value;
};

/** The filter of a first `resources/list` page, from `_meta["cogitave/filter"]`. */
export const readListFilter = (meta: Record<string, unknown> | undefined): ListFilter => {
  const raw = meta?.[LIST_FILTER_META_KEY];
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null)
    throw invalidParams(
      `${LIST_FILTER_META_KEY} must be an object like {"type": "request", "product": "core"}`,
    );
  const filter = raw as Record<string, unknown>;
  const type = optionalString(filter.type, 'type');
  if (type !== undefined && !RESOURCE_TYPES.includes(type))
    throw invalidParams(
      `${LIST_FILTER_META_KEY}.type "${type}" is unknown; allowed: ${RESOURCE_TYPES.join(', ')}`,
    );
  return { type, product: optionalString(filter.product, 'product') };
};

const entryName = (entry: ResourceEntry): string => entry.uri.replace(/^cogitave:\/\//, '');

/** The `resources/list` entry of an index row. */
export const resourceListEntry = (entry: ResourceEntry) => ({
  uri: entry.uri,
  name: entryName(entry),
  title: entry.title,
  mimeType: MIME_JSON,
  icons: [typeIcon(entry.type)],
  annotations: { lastModified: entry.lastModified },
  _meta: {
    type: entry.type,
    product: entry.product,
    contentHash: entry.contentHash,
    lastModified: entry.lastModified,
  },
});

export interface ResourcePage {
  readonly entries: ResourceEntry[];
  readonly nextCursor: string | undefined;
}

/**
 * One page of the index visible to the caller. Rows outside the caller's grants are skipped
 * while scanning, so a page may take more than one query; the cursor is the last URI scanned.
 */
export const listVisibleResources = async (
  db: Queryable,
  caller: Caller,
  filter: ListFilter,
  after: string | undefined,
): Promise<ResourcePage> => {
  const entries: ResourceEntry[] = [];
  let cursor = after;
  for (;;) {
    const batch = await listResources(db, {
      type: filter.type,
      product: filter.product,
      afterUri: cursor,
      limit: PAGE_SIZE + 1,
    });
    for (const entry of batch) {
      if (entries.length === PAGE_SIZE) {
        return {
          entries,
          nextCursor: encodeCursor({ ...filter, after: entries.at(-1)?.uri ?? cursor ?? '' }),
        };
      }
      cursor = entry.uri;
      if (mayRead(readScopeOf(caller.grants), entry.type, entry.product)) entries.push(entry);
    }
    if (batch.length <= PAGE_SIZE) return { entries, nextCursor: undefined };
  }
};

export const listResourcesPage = async (
  db: Queryable,
  caller: Caller,
  params: { cursor?: string | undefined; _meta?: Record<string, unknown> | undefined },
): Promise<ResourcePage> => {
  if (params.cursor !== undefined) {
    const state = decodeCursor(params.cursor);
    return listVisibleResources(db, caller, state, state.after);
  }
  return listVisibleResources(db, caller, readListFilter(params._meta), undefined);
};

/** `resources/templates/list`: the generic template, then one per type the caller may read. */
export const resourceTemplates = (caller: Caller) => [
  {
    uriTemplate: RESOURCE_URI_TEMPLATE,
    name: 'node',
    title: 'Any Cogitave resource',
    description: `A node of the knowledge graph, a request or a network, as JSON. {type} is one of ${RESOURCE_TYPES.join(', ')}; "cogitave://{type}/" (empty id) lists a collection.`,
    mimeType: MIME_JSON,
    icons: [typeIcon('doc')],
  },
  ...RESOURCE_TYPES.filter((type) => mayReadType(readScopeOf(caller.grants), type)).map((type) => ({
    uriTemplate: `cogitave://${type}/{id}`,
    name: type,
    title: `${type} resource`,
    description: TYPE_DESCRIPTIONS[type] ?? type,
    mimeType: MIME_JSON,
    icons: [typeIcon(type)],
  })),
];

/**
 * Why the caller may not follow `uri` (subscribe, listen), or undefined. It depends on the URI
 * and the grant only: an item outside a product grant is accepted like a missing one, and is
 * never notified (see `visibleTo` in factory.ts).
 */
export const subscriptionProblem = (caller: Caller, uri: string): string | undefined => {
  const parsed = parseResourceUri(uri);
  if (!parsed) return `${uri} is not a cogitave://{type}/{id} or cogitave://{type}/ URI`;
  if (!mayReadType(readScopeOf(caller.grants), parsed.type))
    return `${caller.actor} may not read ${parsed.type} resources`;
  return undefined;
};

const readCollection = async (db: Queryable, caller: Caller, type: string, uri: string) => {
  const page = await listVisibleResources(db, caller, { type }, undefined);
  const document = {
    uri,
    type,
    items: page.entries.map((entry) => ({
      uri: entry.uri,
      title: entry.title,
      product: entry.product,
      contentHash: entry.contentHash,
      lastModified: entry.lastModified,
    })),
    nextCursor: page.nextCursor ?? null,
  };
  return {
    contents: [{ uri, mimeType: MIME_JSON, text: JSON.stringify(document, null, 2) }],
  };
};

/** `resources/read`: the JSON document with `contentHash` and `lastModified` in `_meta`. */
export const readResource = async (
  db: Queryable,
  readers: ResourceReaders,
  caller: Caller,
  uri: string,
) => {
  const parsed = parseResourceUri(uri);
  if (!parsed || !RESOURCE_TYPES.includes(parsed.type)) throw new ResourceNotFoundError(uri);
  const problem = subscriptionProblem(caller, uri);
  if (problem !== undefined) throw invalidParams(`Resource ${uri}: ${problem}`);
  if (parsed.kind === 'collection') return readCollection(db, caller, parsed.type, uri);
  const reader = readers.get(parsed.type);
  const [entry, document] = await Promise.all([
    getResource(db, uri),
    reader ? reader(db, parsed.id) : Promise.resolve(undefined),
  ]);
  // Outside the product grant reads exactly as absent.
  if (
    document === undefined ||
    (entry !== undefined && !mayRead(readScopeOf(caller.grants), entry.type, entry.product))
  )
    throw new ResourceNotFoundError(uri);
  // The hash of what is served (not of the index row, which a concurrent commit may move on).
  const meta = {
    contentHash: resourceContentHash(document),
    lastModified: entry?.lastModified ?? null,
  };
  return {
    contents: [
      {
        uri,
        mimeType: MIME_JSON,
        text: JSON.stringify(document, null, 2),
        ...(entry ? { annotations: { lastModified: entry.lastModified } } : {}),
        _meta: meta,
      },
    ],
    _meta: meta,
  };
};

const MAX_COMPLETIONS = 100;

/** `completion/complete` for the template variables: `type`, and `id` by prefix from the index. */
export const completeTemplateVariable = async (
  db: Queryable,
  caller: Caller,
  templateUri: string,
  name: string,
  value: string,
  context: Record<string, string> | undefined,
): Promise<{ values: string[]; total?: number; hasMore?: boolean }> => {
  const fixedType = /^cogitave:\/\/([a-z][a-z0-9-]*)\/\{id\}$/.exec(templateUri)?.[1];
  if (name === 'type') {
    const values = RESOURCE_TYPES.filter(
      (type) => type.startsWith(value) && mayReadType(readScopeOf(caller.grants), type),
    );
    return { values, total: values.length, hasMore: false };
  }
  if (name !== 'id') return { values: [] };
  const type = fixedType ?? context?.type;
  if (
    type === undefined ||
    !RESOURCE_TYPES.includes(type) ||
    !mayReadType(readScopeOf(caller.grants), type)
  )
    return { values: [] };
  const prefix = `${collectionUri(type)}${encodeURIComponent(value)}`;
  // Index order is URI order, so the matches are the run of rows from the prefix onwards.
  const rows = await listResources(db, {
    type,
    afterUri: prefix.slice(0, -1) || undefined,
    limit: MAX_COMPLETIONS + 1,
  });
  const values = rows
    .filter(
      (row) =>
        row.uri.startsWith(prefix) && mayRead(readScopeOf(caller.grants), row.type, row.product),
    )
    .map((row) => decodeURIComponent(row.uri.slice(collectionUri(type).length)));
  return {
    values: values.slice(0, MAX_COMPLETIONS),
    hasMore: values.length > MAX_COMPLETIONS,
  };
};
