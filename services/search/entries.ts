import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CatalogNode } from './documents.js';
import { compareMonikers } from '../catalog/site.js';
import { preferredVersion, type PageText } from './pages.js';

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
  /** The node's text, read a range at a time (a page inflates only the pieces asked for). */
  pageText(uid: string): PageText;
}

/**
 * A page's text, deflated in pieces of at least PIECE_CHARS characters cut at its headings, so
 * the best section of a hit inflates its piece, not the whole page (pages reach hundreds of
 * kilobytes; inflating each hit's page was a tenth of a search's time at 10,000 pages).
 */
interface DeflatedPage {
  /** The pieces, each a raw deflate stream of its own, one after another. */
  readonly bytes: Uint8Array;
  /** Piece i is bytes [byteEnds[i - 1] ?? 0, byteEnds[i]). */
  readonly byteEnds: Int32Array;
  /** Piece i is characters [charStarts[i], charStarts[i + 1]) of the text. */
  readonly charStarts: Int32Array;
}

const PIECE_CHARS = 4096;

const deflatePage = (body: string, cuts: readonly number[]): DeflatedPage => {
  const starts = [0];
  for (const cut of cuts) {
    if (cut - (starts.at(-1) as number) >= PIECE_CHARS && body.length - cut >= PIECE_CHARS / 4) {
      starts.push(cut);
    }
  }
  starts.push(body.length);
  // Level 1: a third of the text's size at half the cost of the default level.
  const pieces = starts
    .slice(0, -1)
    .map((start, i) => deflateRawSync(body.slice(start, starts[i + 1]), { level: 1 }));
  const byteEnds = new Int32Array(pieces.length);
  let end = 0;
  pieces.forEach((piece, i) => {
    end += piece.length;
    byteEnds[i] = end;
  });
  // One copy of the pieces, in memory of its own: zlib's results are views of 16 KiB chunks, and
  // Buffer.concat would take a small page's bytes from the shared 8 KiB pool, keeping it alive.
  const bytes = new Uint8Array(end);
  pieces.forEach((piece, i) => {
    bytes.set(piece, i === 0 ? 0 : byteEnds[i - 1]);
  });
  return { bytes, byteEnds, charStarts: Int32Array.from(starts) };
};

const inflatePiece = (page: DeflatedPage, piece: number): string =>
  inflateRawSync(
    page.bytes.subarray(piece === 0 ? 0 : page.byteEnds[piece - 1], page.byteEnds[piece]),
  ).toString('utf8');

/** Reads a deflated page by ranges, inflating each piece at most once. */
const pageReader = (page: DeflatedPage): PageText => {
  const inflated = new Map<number, string>();
  const piece = (i: number): string => {
    let text = inflated.get(i);
    if (text === undefined) inflated.set(i, (text = inflatePiece(page, i)));
    return text;
  };
  const length = page.charStarts[page.charStarts.length - 1] as number;
  return {
    length,
    slice: (start, end) => {
      const from = Math.max(0, Math.min(start, length));
      const to = Math.max(from, Math.min(end, length));
      if (from === to) return '';
      let out = '';
      for (let i = 0; i + 1 < page.charStarts.length; i += 1) {
        const pieceStart = page.charStarts[i] as number;
        const pieceEnd = page.charStarts[i + 1] as number;
        if (pieceEnd <= from) continue;
        if (pieceStart >= to) break;
        out += piece(i).slice(Math.max(from, pieceStart) - pieceStart, to - pieceStart);
      }
      return out;
    },
  };
};

const distinctMonikers = (entries: readonly Entry[]): string[] =>
  [...new Set(entries.flatMap((entry) => entry.monikers))].sort(compareMonikers);

export const createEntryStore = (): EntryStore => {
  const entries = new Map<string, Entry>();
  const pages = new Map<string, Set<string>>();
  const heads = new Map<string, Head>();
  const texts = new Map<string, string | DeflatedPage>();

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
      texts.set(
        uid,
        deflatePage(
          node.body,
          node.sections.map((section) => section.offset),
        ),
      );
    },
    text: (uid) => {
      const text = texts.get(uid);
      if (text === undefined) return '';
      if (typeof text === 'string') return text;
      return Array.from({ length: text.byteEnds.length }, (_, i) => inflatePiece(text, i)).join('');
    },
    pageText: (uid) => {
      const text = texts.get(uid);
      if (text === undefined) return '';
      return typeof text === 'string' ? text : pageReader(text);
    },
  };
};
