import type { ChangeSignal } from '../../projections/change-feed.js';
import { catalogUidOf, isCatalogCollection } from './documents.js';
import type { SearchIndexes } from './search-indexes.js';

export interface ChangeFollower {
  /** From now on changes are applied (before the first build, that build reads everything). */
  start(): void;
  unsubscribe(): void;
}

/**
 * Keeps the indexes current from the change feed: changed catalog URIs are re-read, a resync
 * or a truncated notice naming a catalog collection reloads everything. Changes arriving
 * while an update runs are coalesced into the next one.
 */
export const followChanges = (
  indexes: SearchIndexes,
  changes: { onChange(listener: (signal: ChangeSignal) => void): () => void },
  started: boolean,
): ChangeFollower => {
  // Changed uids waiting for the next update; coalesced while one runs.
  let pending = new Set<string>();
  let fullPending = false;
  const schedule = (): void => {
    void indexes.enqueue(async () => {
      if (fullPending) {
        fullPending = false;
        pending = new Set();
        await indexes.reloadAll();
        return;
      }
      if (pending.size === 0) return;
      const uids = [...pending];
      pending = new Set();
      await indexes.reload(uids);
    });
  };

  // Until the first build starts, changes need no handling: that build reads everything.
  let building = started;
  const unsubscribe = changes.onChange((signal) => {
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
  return {
    start: () => {
      building = true;
    },
    unsubscribe,
  };
};
