import { resourceUri } from '../../projections/resources.js';
import { labelForResourceType, labelSpec } from '../catalog/vocabulary.js';
import type { RetrievalDocument } from './retriever.js';

/** A catalog node as the search index reads it from `read_model.catalog_nodes`. */
export interface CatalogNode {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly summary: string;
  readonly body: string;
  readonly product: string | null;
  readonly monikers: readonly string[];
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly lastModified: string;
  /** The page across versions (its site path without the version folder); null: none. */
  readonly page: string | null;
  readonly path: string | null;
  readonly sections: readonly { anchor: string; heading: string; level: number; offset: number }[];
}

/** An outbound edge of `read_model.catalog_edges`. */
export interface CatalogEdge {
  readonly sourceUid: string;
  readonly edgeType: string;
  readonly targetUid: string;
  /** The edge touches a code sample: it belongs to the samples' index, not the docs'. */
  readonly sample: boolean;
}

const HEADING = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm;

/** Markdown ATX headings of a body: a field of their own, weighted above the body text. */
export const extractHeadings = (markdown: string): string =>
  [...markdown.matchAll(HEADING)].map((match) => match[1] ?? '').join('\n');

/** The searchable fields of a node. A code sample's body is its code. */
export const toRetrievalDocument = (node: CatalogNode): RetrievalDocument => ({
  id: node.uid,
  fields: {
    title: node.title,
    summary: node.summary,
    headings: node.label === 'CodeSample' ? '' : extractHeadings(node.body),
    body: node.body,
  },
});

/** `cogitave://{type}/{uid}` of a node, from its label's resource type. */
export const nodeUri = (label: string, uid: string): string =>
  resourceUri(labelSpec(label)?.resourceType ?? label.toLowerCase(), uid);

/**
 * The uid of a catalog node from a changed resource URI; undefined for URIs the catalog does
 * not own (requests, networks, ...).
 */
export const catalogUidOf = (uri: string): string | undefined => {
  const match = /^cogitave:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match?.[1] || !match[2]) return undefined;
  const spec = labelForResourceType(match[1]);
  if (spec?.source !== 'catalog') return undefined;
  try {
    return decodeURIComponent(match[2]);
  } catch {
    return undefined;
  }
};

/** True when a re-list of `collection` (`cogitave://doc/`) concerns the catalog. */
export const isCatalogCollection = (collection: string): boolean => {
  const match = /^cogitave:\/\/([^/]+)\/$/.exec(collection);
  return match?.[1] !== undefined && labelForResourceType(match[1])?.source === 'catalog';
};
