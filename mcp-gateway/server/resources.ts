import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { mayReadType, type ReadScope } from '../../services/access/grants.js';
import { NODE_LABELS, RESOURCE_URI_TEMPLATE } from '../../services/catalog/vocabulary.js';
import {
  collectionUri,
  type ResourceEntry,
  type ResourcesReadService,
} from '../../services/resources/read-service.js';
import { typeIcon } from './icons.js';
import { invalidParams } from './protocol.js';

/** Every resource type of the URI space: the catalog vocabulary's, plus agent-built networks. */
export const RESOURCE_TYPES: readonly string[] = [
  ...new Set([...NODE_LABELS.map((spec) => spec.resourceType), 'network']),
];

const TYPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(NODE_LABELS.map((spec) => [spec.resourceType, spec.description])),
  network: 'An agent-built named graph of nodes and edges (network_* tools).',
};

/**
 * "Resource not found" as each revision names it: -32002 on 2025-11-25; the 2026-07-28 codec
 * answers it as -32602, with the URI in `data` either way.
 */
export const resourceNotFound = (uri: string): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });

const UNSAFE_TEXT =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what it refuses
  /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_URI_LENGTH = 2048;

/**
 * Why a string cannot be a resource URI at all (it never reaches a query), or undefined:
 * control characters (NUL included), unpaired surrogates, no scheme, or absurd length.
 */
export const uriProblem = (uri: string): string | undefined => {
  if (uri.length > MAX_URI_LENGTH) return `longer than ${String(MAX_URI_LENGTH)} characters`;
  if (UNSAFE_TEXT.test(uri)) return 'contains a control character or an unpaired surrogate';
  if (!/^[a-z][a-z0-9+.-]*:/i.test(uri)) return 'has no scheme (cogitave://{type}/{id})';
  return undefined;
};

/** -32602 for a URI that `uriProblem` refuses. */
export const assertUri = (uri: string): void => {
  const problem = uriProblem(uri);
  if (problem !== undefined)
    throw invalidParams(`Invalid resource URI (${problem}); resources are cogitave://{type}/{id}`);
};

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
    const id = decodeURIComponent(encodedId);
    // An id that decodes to a control character names nothing storable.
    return UNSAFE_TEXT.test(id) ? undefined : { kind: 'item', type, id, uri };
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

/** One page of the index within the caller's scope (filtered by the read service, in SQL). */
export const listVisibleResources = async (
  resources: ResourcesReadService,
  scope: ReadScope,
  filter: ListFilter,
  after: string | undefined,
): Promise<ResourcePage> => {
  const batch = await resources.list(scope, {
    type: filter.type,
    product: filter.product,
    afterUri: after,
    limit: PAGE_SIZE + 1,
  });
  const entries = batch.slice(0, PAGE_SIZE);
  const last = entries.at(-1);
  return {
    entries,
    nextCursor:
      batch.length > PAGE_SIZE && last ? encodeCursor({ ...filter, after: last.uri }) : undefined,
  };
};

export const listResourcesPage = async (
  resources: ResourcesReadService,
  scope: ReadScope,
  params: { cursor?: string | undefined; _meta?: Record<string, unknown> | undefined },
): Promise<ResourcePage> => {
  if (params.cursor !== undefined) {
    const state = decodeCursor(params.cursor);
    return listVisibleResources(resources, scope, state, state.after);
  }
  return listVisibleResources(resources, scope, readListFilter(params._meta), undefined);
};

/** `resources/templates/list`: the generic template, then one per type the caller may read. */
export const resourceTemplates = (scope: ReadScope) => [
  {
    uriTemplate: RESOURCE_URI_TEMPLATE,
    name: 'node',
    title: 'Any Cogitave resource',
    description: `A node of the knowledge graph, a request or a network, as JSON. {type} is one of ${RESOURCE_TYPES.join(', ')}; "cogitave://{type}/" (empty id) lists a collection.`,
    mimeType: MIME_JSON,
    icons: [typeIcon('doc')],
  },
  ...RESOURCE_TYPES.filter((type) => mayReadType(scope, type)).map((type) => ({
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
export const subscriptionProblem = (
  scope: ReadScope,
  actor: string,
  uri: string,
): string | undefined => {
  const parsed = parseResourceUri(uri);
  if (!parsed) return `${uri} is not a cogitave://{type}/{id} or cogitave://{type}/ URI`;
  if (!mayReadType(scope, parsed.type)) return `${actor} may not read ${parsed.type} resources`;
  return undefined;
};

const readCollection = async (
  resources: ResourcesReadService,
  scope: ReadScope,
  type: string,
  uri: string,
) => {
  const page = await listVisibleResources(resources, scope, { type }, undefined);
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

/**
 * `resources/read`: the JSON document with `contentHash` and `lastModified` in `_meta`. A type
 * outside the grant is refused by name; an item the scope hides reads exactly as a missing one.
 */
export const readResource = async (
  resources: ResourcesReadService,
  scope: ReadScope,
  actor: string,
  uri: string,
) => {
  assertUri(uri);
  const parsed = parseResourceUri(uri);
  if (!parsed && uri.startsWith('cogitave:'))
    throw invalidParams(`${uri} is not a cogitave://{type}/{id} or cogitave://{type}/ URI`);
  if (!parsed || !RESOURCE_TYPES.includes(parsed.type)) throw resourceNotFound(uri);
  const problem = subscriptionProblem(scope, actor, uri);
  if (problem !== undefined) throw invalidParams(`Resource ${uri}: ${problem}`);
  if (parsed.kind === 'collection') return readCollection(resources, scope, parsed.type, uri);
  const read = await resources.read(scope, parsed.type, parsed.id);
  if (!read) throw resourceNotFound(uri);
  const meta = { contentHash: read.contentHash, lastModified: read.lastModified };
  return {
    contents: [
      {
        uri,
        mimeType: MIME_JSON,
        text: JSON.stringify(read.document, null, 2),
        ...(read.lastModified !== null ? { annotations: { lastModified: read.lastModified } } : {}),
        _meta: meta,
      },
    ],
    _meta: meta,
  };
};

const MAX_COMPLETIONS = 100;

/** `completion/complete` for the template variables: `type`, and `id` by prefix from the index. */
export const completeTemplateVariable = async (
  resources: ResourcesReadService,
  scope: ReadScope,
  templateUri: string,
  name: string,
  value: string,
  context: Record<string, string> | undefined,
): Promise<{ values: string[]; total?: number; hasMore?: boolean }> => {
  const fixedType = /^cogitave:\/\/([a-z][a-z0-9-]*)\/\{id\}$/.exec(templateUri)?.[1];
  if (name === 'type') {
    const values = RESOURCE_TYPES.filter(
      (type) => type.startsWith(value) && mayReadType(scope, type),
    );
    return { values, total: values.length, hasMore: false };
  }
  if (name !== 'id') return { values: [] };
  const type = fixedType ?? context?.type;
  if (type === undefined || !RESOURCE_TYPES.includes(type) || !mayReadType(scope, type))
    return { values: [] };
  const prefix = `${collectionUri(type)}${encodeURIComponent(value)}`;
  // Index order is URI order, so the matches are the run of rows from the prefix onwards.
  const rows = await resources.list(scope, {
    type,
    afterUri: prefix.slice(0, -1) || undefined,
    limit: MAX_COMPLETIONS + 1,
  });
  const values = rows
    .filter((row) => row.uri.startsWith(prefix))
    .map((row) => decodeURIComponent(row.uri.slice(collectionUri(type).length)));
  return {
    values: values.slice(0, MAX_COMPLETIONS),
    hasMore: values.length > MAX_COMPLETIONS,
  };
};
