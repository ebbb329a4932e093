import type { Queryable } from '../database/queryable.js';
import { readLinks, type SealedLink } from './seal.js';

const LINK_PAGE = 5000;

export interface LinkCursor {
  /** The next link in sequence order (not necessarily the next sequence: the seal may have gaps). */
  peek(): Promise<SealedLink | undefined>;
  advance(): void;
}

/** Links in order, a page at a time, the next page read while the current one is used. */
export const linkCursor = (db: Queryable): LinkCursor => {
  let page: SealedLink[] = [];
  let index = 0;
  let next: Promise<SealedLink[]> | undefined = readLinks(db, 0n, LINK_PAGE);
  return {
    peek: async (): Promise<SealedLink | undefined> => {
      if (index < page.length) return page[index];
      if (!next) return undefined;
      page = await next;
      index = 0;
      const last = page.at(-1);
      next =
        last && page.length === LINK_PAGE
          ? readLinks(db, last.sequence + 1n, LINK_PAGE)
          : undefined;
      return page[0];
    },
    advance: (): void => {
      index += 1;
    },
  };
};
