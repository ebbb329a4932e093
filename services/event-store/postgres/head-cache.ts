/**
 * The newest (revision, hash) this process has seen committed for each stream: immutable
 * facts, since a stored event never changes. With it the adapter can compute the chain links
 * of an append itself and write it with a plain INSERT (see insertChained). A stale entry is
 * harmless: the unique revision index refuses the write and the general path takes over.
 * Bounded; the oldest entries are dropped first.
 */
export interface StreamHead {
  readonly revision: bigint;
  readonly hash: string;
}

export interface HeadCache {
  get(streamId: string): StreamHead | undefined;
  /** Records a committed event; keeps the newest revision per stream. */
  remember(streamId: string, head: StreamHead): void;
  forget(streamId: string): void;
}

export const createHeadCache = (maxStreams: number): HeadCache => {
  const heads = new Map<string, StreamHead>();
  return {
    get: (streamId) => heads.get(streamId),
    remember: (streamId, head) => {
      const known = heads.get(streamId);
      if (known && known.revision >= head.revision) return;
      // Re-insert so iteration order is least recently updated first.
      heads.delete(streamId);
      heads.set(streamId, head);
      if (heads.size > maxStreams) {
        const oldest = heads.keys().next();
        if (!oldest.done) heads.delete(oldest.value);
      }
    },
    forget: (streamId) => {
      heads.delete(streamId);
    },
  };
};
