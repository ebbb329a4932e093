import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CatalogNode } from './documents.js';
import { compareMonikers } from '../catalog/site.js';
import { preferredVersion } from './pages.js';

/** What a search answers with about a node, besides its scores. */
export interface Entry {
  readonly label: string;
  readonly title: string;
  readonly summary: string;
  readonly product: string | null;
  readonly monikers: readonly string[];
  readonly lastModified: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** The page across versions (null: the node is its own page). */
  readonly page: string | null;
  readonly sections: CatalogNode['sections'];
  /** The key the versions of one page share. */
  readonly key: string;
}

/** The key the versions of one page share: its version-free path within its source. */
const pageKey = (node: Pick<CatalogNode, 'uid' | 'label' | 'page'>): string => {
  const { uid } = node;
  if (node.page === null) return `uid:${uid}`;
  // A sample across versions: the same page and the same place in it.
  if (node.label === 'CodeSample') {
    return `sample:${node.page}#${uid.slice(uid.lastIndexOf('.sample-'))}`;
  }
  return `page:${node.page}`;
};

export type VersionRole = 'only' | 'newest' | 'older' | 'mixed';

interface Head {
  /** The version that stands for the page: the newest released one. */
  readonly newest: string | undefined;
  /** Every version has the same label and product, so every reader sees all or none. */
  readonly uniform: boolean;
  /** The monikers of every version, distinct, newest first (sorted once per page). */
  readonly monikers: readonly string[];
}

/**
 * The nodes the search indexes hold, by uid: their entries, the versions of each page, and
 * their text for excerpts. A page's text is read for the few hits of a search only, so pages
 * are kept deflated (a third of their size; as strings they were the largest part of the
 * index's memory at 10,000 pages); a sample's code, short and returned whole, stays a string.
 */
export interface EntryStore {
  get(uid: string): Entry | undefined;
  set(uid: string, node: CatalogNode): void;
  delete(uid: string): void;
  entries(): IterableIterator<[string, Entry]>;
  /** The uids of every version of the page `uid` belongs to (itself at least, when known). */
  versions(uid: string): ReadonlySet<string>;
  /**
   * How a node stands for its page in searches that name no moniker: `only` (the page has no
   * other version), `newest` (it stands for its page), `older` (an older version, found only
   * when a moniker is asked for), or `mixed` (the versions differ in label or product, so
   * which one a caller may read decides, per search). Only a page whose versions read alike to
   * every caller leaves its older versions out: otherwise a caller who may not read the newest
   * would lose the page.
   */
  role(uid: string): VersionRole;
  /**
   * The monikers of the versions of `uid`'s page that `visible` lets through, distinct and
   * newest first: what a hit lists as the versions it exists in.
   */
  pageMonikers(uid: string, visible: (entry: Entry) => boolean): readonly string[];
  /** Keeps a node's text (deflated for pages). */
  setText(uid: string, node: CatalogNode): void;
  /** The node's text as kept ('' when none is). */
  text(uid: string): string;
}

const distinctMonikers = (entries: readonly Entry[]): string[] =>
  [...new Set(entries.flatMap((entry) => entry.monikers))].sort(compareMonikers);

export const createEntryStore = (): EntryStore => {
  const entries = new Map<string, Entry>();
  const pages = new Map<string, Set<string>>();
  const heads = new Map<string, Head>();
  const texts = new Map<string, string | Uint8Array>();

  const leave = (uid: string): void => {
    const before = entries.get(uid);
    if (!before) return;
    const versions = pages.get(before.key);
    versions?.delete(uid);
    if (versions?.size === 0) pages.delete(before.key);
    heads.delete(before.key);
    entries.delete(uid);
  };

  const headOf = (key: string): Head => {
    let head = heads.get(key);
    if (head) return head;
    const versions = [...(pages.get(key) ?? [])].flatMap((uid) => {
      const entry = entries.get(uid);
      return entry ? [{ id: uid, entry }] : [];
    });
    const first = versions[0]?.entry;
    head = {
      newest: preferredVersion(versions.map(({ id, entry }) => ({ id, monikers: entry.monikers }))),
      uniform: versions.every(
        ({ entry }) => entry.label === first?.label && entry.product === first.product,
      ),
      monikers: distinctMonikers(versions.map(({ entry }) => entry)),
    };
    heads.set(key, head);
    return head;
  };

  return {
    get: (uid) => entries.get(uid),
    set: (uid, node) => {
      leave(uid);
      const key = pageKey(node);
      entries.set(uid, {
        label: node.label,
        title: node.title,
        summary: node.summary,
        product: node.product,
        monikers: node.monikers,
        lastModified: node.lastModified,
        attributes: node.attributes,
        page: node.page,
        sections: node.sections,
        key,
      });
      let versions = pages.get(key);
      if (!versions) pages.set(key, (versions = new Set()));
      versions.add(uid);
      heads.delete(key);
    },
    delete: (uid) => {
      leave(uid);
      texts.delete(uid);
    },
    entries: () => entries.entries(),
    versions: (uid) => {
      const entry = entries.get(uid);
      return (entry && pages.get(entry.key)) ?? new Set(entry ? [uid] : []);
    },
    role: (uid) => {
      const entry = entries.get(uid);
      if (!entry || (pages.get(entry.key)?.size ?? 0) < 2) return 'only';
      const head = headOf(entry.key);
      if (!head.uniform || head.newest === undefined) return 'mixed';
      return head.newest === uid ? 'newest' : 'older';
    },
    pageMonikers: (uid, visible) => {
      const entry = entries.get(uid);
      if (!entry) return [];
      const head = headOf(entry.key);
      // Versions alike in label and product are all visible when one is.
      if (head.uniform) return visible(entry) ? head.monikers : [];
      return distinctMonikers(
        [...(pages.get(entry.key) ?? [])].flatMap((version) => {
          const other = entries.get(version);
          return other !== undefined && visible(other) ? [other] : [];
        }),
      );
    },
    setText: (uid, node) => {
      if (node.label === 'CodeSample') {
        texts.set(uid, node.body);
        return;
      }
      // Level 1: a third of the text's size at half the cost of the default level. Copied out,
      // since zlib's result is a view of a 16 KiB chunk: kept as is, every page held a chunk.
      texts.set(uid, new Uint8Array(deflateRawSync(node.body, { level: 1 })));
    },
    text: (uid) => {
      const text = texts.get(uid);
      if (text === undefined) return '';
      return typeof text === 'string' ? text : inflateRawSync(text).toString('utf8');
    },
  };
};
