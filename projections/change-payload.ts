import { z } from 'zod';
import { isPosition } from '../services/event-store/position.js';
import type { Position } from '../services/event-store/types.js';

/** The channel every committed projection batch notifies on. */
export const CHANGE_CHANNEL = 'cogitave_changes';

/**
 * Postgres refuses NOTIFY payloads of 8000 bytes or more (default build); staying a little
 * below leaves room for nothing else, since the channel name is not counted.
 */
export const NOTIFY_MAX_BYTES = 7999;

/** What one committed batch changed. */
export interface ChangeNotice {
  readonly projection: string;
  /** The projection's checkpoint after the batch. */
  readonly position: Position;
  /** Changed resource URIs; empty when `truncated`. */
  readonly uris: readonly string[];
  /** Collections (`cogitave://request/`) to re-list: membership changed, or `truncated`. */
  readonly collections: readonly string[];
  /**
   * Too many URIs for one notification: listeners re-list `collections` and re-read every
   * resource they follow in them (comparing `contentHash`).
   */
  readonly truncated?: true;
  /** The product of each URI in `uris` (null: none); absent from notices of older versions. */
  readonly products?: Readonly<Record<string, string | null>>;
  /** With `truncated`: every product a changed resource belongs to (null: one without). */
  readonly touchedProducts?: readonly (string | null)[];
}

/** `cogitave://request/req-1` → `cogitave://request/`; undefined for anything else. */
export const collectionOf = (uri: string): string | undefined => {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/]+\/)/.exec(uri);
  return match?.[1];
};

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The NOTIFY payload of a batch, always under `maxBytes`. When the URIs do not fit, the
 * payload names no URI, sets `truncated` and lists the collections of every changed URI, so a
 * listener knows exactly what to re-list. A notice whose collections alone do not fit lists
 * none: `truncated` with no collection means "re-list everything".
 */
export const buildChangePayload = (notice: ChangeNotice, maxBytes = NOTIFY_MAX_BYTES): string => {
  const uris = [...new Set(notice.uris)];
  const collections = [...new Set(notice.collections)];
  const products = notice.products ?? {};
  const full = JSON.stringify({
    projection: notice.projection,
    position: notice.position,
    uris,
    collections,
    ...(notice.products
      ? { products: Object.fromEntries(uris.map((uri) => [uri, products[uri] ?? null])) }
      : {}),
  });
  if (byteLength(full) <= maxBytes && notice.truncated !== true) return full;
  const touched = new Set(collections);
  for (const uri of uris) {
    const collection = collectionOf(uri);
    if (collection !== undefined) touched.add(collection);
  }
  const touchedProducts = notice.products
    ? [...new Set(uris.map((uri) => products[uri] ?? null))]
    : notice.touchedProducts;
  const truncated = JSON.stringify({
    projection: notice.projection,
    position: notice.position,
    uris: [],
    collections: [...touched].sort(),
    truncated: true,
    ...(touchedProducts ? { touchedProducts } : {}),
  });
  if (byteLength(truncated) <= maxBytes) return truncated;
  const bare = JSON.stringify({
    projection: notice.projection,
    position: notice.position,
    uris: [],
    collections: [],
    truncated: true,
  });
  if (byteLength(bare) > maxBytes) {
    throw new RangeError(
      `a change notice for projection "${notice.projection}" cannot fit in ${maxBytes} bytes`,
    );
  }
  return bare;
};

const noticeSchema = z.object({
  projection: z.string().min(1),
  position: z.string().refine(isPosition, 'must be a position'),
  uris: z.array(z.string()),
  collections: z.array(z.string()),
  truncated: z.literal(true).optional(),
  products: z.record(z.string(), z.string().nullable()).optional(),
  touchedProducts: z.array(z.string().nullable()).optional(),
});

/** Parses a payload from the channel; undefined when it is not a change notice. */
export const parseChangePayload = (payload: string): ChangeNotice | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const parsed = noticeSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { truncated, position, products, touchedProducts, ...rest } = parsed.data;
  return {
    ...rest,
    position,
    ...(truncated ? { truncated } : {}),
    ...(products ? { products } : {}),
    ...(touchedProducts ? { touchedProducts } : {}),
  };
};
