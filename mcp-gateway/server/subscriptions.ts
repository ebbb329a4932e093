import { collectionOf, type ChangeNotice } from '../../projections/change-payload.js';
import type { ChangeSignal } from '../../projections/change-feed.js';
import {
  isUnrestricted,
  mayReadProduct,
  mayReadType,
  type ReadScope,
} from '../../services/access/grants.js';

/** What one connection must be told about a committed change. */
export interface Delivery {
  /** URIs for `notifications/resources/updated`. */
  readonly updated: readonly string[];
  /** Whether to send `notifications/resources/list_changed`. */
  readonly listChanged: boolean;
}

/**
 * The `resources/subscribe` set of one 2025-11-25 connection (an HTTP session or a stdio
 * connection): resource URIs and whole collections (`cogitave://request/`).
 *
 * A collection subscription hears `resources/updated` for the collection URI whenever a
 * member changes or joins, plus one per changed member URI.
 */
export class ConnectionSubscriptions {
  readonly #uris = new Set<string>();

  add(uri: string): void {
    this.#uris.add(uri);
  }

  remove(uri: string): void {
    this.#uris.delete(uri);
  }

  get size(): number {
    return this.#uris.size;
  }

  deliveryFor(signal: ChangeSignal): Delivery {
    if (signal.kind === 'resync') return { updated: [...this.#uris], listChanged: true };
    const { notice } = signal;
    const updated = new Set<string>();
    const touched = new Set(notice.collections);
    for (const uri of notice.uris) {
      const collection = collectionOf(uri);
      if (collection !== undefined) touched.add(collection);
      if (this.#uris.has(uri) || (collection !== undefined && this.#uris.has(collection)))
        updated.add(uri);
    }
    for (const collection of touched) if (this.#uris.has(collection)) updated.add(collection);
    if (notice.truncated) {
      // No URIs: every followed resource in a named collection (all, when none is named) may
      // have changed; the client re-reads and compares contentHash.
      for (const uri of this.#uris) {
        const collection = collectionOf(uri) ?? uri;
        if (notice.collections.length === 0 || touched.has(collection)) updated.add(uri);
      }
    }
    return {
      updated: [...updated],
      listChanged: notice.collections.length > 0 || notice.truncated === true,
    };
  }
}

/**
 * What a 2026-07-28 `subscriptions/listen` bus must publish for a change: every changed URI
 * and every touched collection URI (listen filters match URIs exactly, so collection
 * subscribers name `cogitave://{type}/`).
 */
export const modernDeliveryFor = (signal: ChangeSignal): Delivery => {
  if (signal.kind === 'resync') return { updated: [], listChanged: true };
  const { notice } = signal;
  const updated = new Set(notice.uris);
  for (const uri of notice.uris) {
    const collection = collectionOf(uri);
    if (collection !== undefined) updated.add(collection);
  }
  for (const collection of notice.collections) updated.add(collection);
  return {
    updated: [...updated],
    listChanged: notice.collections.length > 0 || notice.truncated === true,
  };
};

const typeOfUri = (uri: string): string | undefined => /^cogitave:\/\/([^/]+)\//.exec(uri)?.[1];

/**
 * What of a change the scope may hear of: an item only when it may read that item (by the
 * product the notice names, so a deleted one too), a collection only when a member it may read
 * changed or joined or left, `list_changed` only for such a membership change. A notice
 * without products (from an older replica) reaches product-restricted scopes with nothing.
 */
const hearsOf = (scope: ReadScope, notice: ChangeNotice) => {
  const item = (uri: string): boolean => {
    const type = typeOfUri(uri);
    if (type === undefined || !mayReadType(scope, type)) return false;
    if (scope.products === '*') return true;
    const products = notice.products;
    return (
      products !== undefined && uri in products && mayReadProduct(scope, products[uri] ?? null)
    );
  };
  const collection = (uri: string): boolean => {
    const type = typeOfUri(uri);
    if (type === undefined || !mayReadType(scope, type)) return false;
    if (scope.products === '*') return true;
    if (notice.truncated === true)
      return (notice.touchedProducts ?? []).some((product) => mayReadProduct(scope, product));
    return notice.uris.some((member) => collectionOf(member) === uri && item(member));
  };
  return { item, collection };
};

/** A delivery narrowed to what `scope` may hear of (see `hearsOf`); resyncs carry no data. */
export const scopeDelivery = (
  scope: ReadScope,
  signal: ChangeSignal,
  delivery: Delivery,
): Delivery => {
  if (signal.kind === 'resync' || isUnrestricted(scope)) return delivery;
  const { notice } = signal;
  const hears = hearsOf(scope, notice);
  const isCollection = (uri: string): boolean => collectionOf(uri) === uri;
  return {
    updated: delivery.updated.filter((uri) =>
      isCollection(uri) ? hears.collection(uri) : hears.item(uri),
    ),
    listChanged:
      delivery.listChanged &&
      (notice.truncated === true
        ? notice.collections.length === 0
          ? (notice.touchedProducts ?? []).some((product) => mayReadProduct(scope, product))
          : notice.collections.some(hears.collection)
        : notice.collections.some(hears.collection)),
  };
};
