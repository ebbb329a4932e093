import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../event-store/hash-chain.js';

/**
 * A catalog node's canonical content: what its events carry in full and what `resources/read`
 * serves. Normalised (sorted monikers and edges, explicit nulls) so equal content always has
 * equal canonical JSON, and so an unchanged corpus hashes to the same `contentHash`.
 */
export const EDGE_ORIGINS = ['frontMatter', 'text'] as const;
export type EdgeOrigin = (typeof EDGE_ORIGINS)[number];

export interface NodeEdge {
  readonly type: string;
  readonly target: string;
  /** Order among the source's edges of one type (or the position inside the target). */
  readonly ordinal: number;
  readonly origin: EdgeOrigin;
  /** The target's section a link points at (`#anchor`), when it names one. */
  readonly anchor?: string;
}

/** A heading of a page: where its section starts in the body. */
export interface NodeSection {
  readonly anchor: string;
  readonly heading: string;
  /** 1–6. */
  readonly level: number;
  /** Character offset of the heading line in the body. */
  readonly offset: number;
  /** The monikers the section has content in, when fewer than its page's (Learn zones). */
  readonly monikers?: readonly string[];
}

/** The fields every view of a node shares (the content, the index's node, the read view). */
export type NodeFields = Pick<
  NodeContent,
  'uid' | 'label' | 'title' | 'summary' | 'body' | 'product' | 'monikers' | 'attributes'
>;

export interface NodeContent {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly summary: string;
  /** Markdown for documents, the code for a CodeSample. */
  readonly body: string;
  readonly product: string | null;
  readonly monikers: readonly string[];
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Outbound edges, sorted by (type, ordinal, target). */
  readonly edges: readonly NodeEdge[];
  /** Path of the corpus file, relative to the corpus root, with `/` separators. */
  readonly sourcePath: string | null;
  /**
   * The named source (one ingested folder) the node belongs to; only an ingest of that source
   * revises or retires it. Absent on nodes published before sources existed.
   */
  readonly source?: string;
  /** Site path of the page (`/specification/2025-11-25/client/sampling`). */
  readonly path?: string;
  /** The page across versions: its site path without the version folder. */
  readonly page?: string;
  /** The page's headings, in order (absent for nodes without a Markdown body). */
  readonly sections?: readonly NodeSection[];
}

export const nodeEdgeSchema = z.object({
  type: z.string(),
  target: z.string(),
  ordinal: z.number().int(),
  origin: z.enum(EDGE_ORIGINS),
  anchor: z.string().optional(),
});

export const nodeSectionSchema = z.object({
  anchor: z.string(),
  heading: z.string(),
  level: z.number().int(),
  offset: z.number().int(),
  monikers: z.array(z.string()).optional(),
});

export const nodeContentSchema = z.object({
  uid: z.string(),
  label: z.string(),
  title: z.string(),
  summary: z.string(),
  body: z.string(),
  product: z.string().nullable(),
  monikers: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  edges: z.array(nodeEdgeSchema),
  sourcePath: z.string().nullable(),
  source: z.string().optional(),
  path: z.string().optional(),
  page: z.string().optional(),
  sections: z.array(nodeSectionSchema).optional(),
});

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const compareEdges = (a: NodeEdge, b: NodeEdge): number =>
  byCodePoint(a.type, b.type) || a.ordinal - b.ordinal || byCodePoint(a.target, b.target);

const withoutUndefined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/**
 * The one normal form: sorted, de-duplicated monikers and edges; no undefined attributes; the
 * optional fields present only when set (so content from before they existed hashes as it did).
 */
export const normalizeContent = (content: NodeContent): NodeContent =>
  withoutUndefined({
    uid: content.uid,
    label: content.label,
    title: content.title,
    summary: content.summary,
    body: content.body,
    product: content.product,
    monikers: [...new Set(content.monikers)].sort(byCodePoint),
    attributes: Object.fromEntries(
      Object.entries(content.attributes)
        .filter(([, value]) => value !== undefined)
        .sort(([a], [b]) => byCodePoint(a, b)),
    ),
    edges: [...content.edges].sort(compareEdges).map((edge) => withoutUndefined({ ...edge })),
    sourcePath: content.sourcePath,
    source: content.source,
    path: content.path,
    page: content.page,
    sections: content.sections?.map((section) => withoutUndefined({ ...section })),
  });

/** sha256 (hex) of the canonical JSON (RFC 8785): the same formula as the resource index's. */
// Contents are never mutated once made, so each one's hash is computed once: ingest asks for
// it when planning and again when deciding (canonical JSON of a page is most of the cost).
const hashes = new WeakMap<NodeContent, string>();

export const nodeContentHash = (content: NodeContent): string => {
  let hash = hashes.get(content);
  if (hash === undefined) {
    hash = createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex');
    hashes.set(content, hash);
  }
  return hash;
};
