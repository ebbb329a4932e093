import { resourceUri } from '../../projections/resources.js';
import { labelForResourceType, labelSpec } from '../catalog/vocabulary.js';
import type { CatalogIndexNode as CatalogNode } from '../catalog/read-model/search-queries.js';
import type { RetrievalDocument } from './retriever.js';

/** A catalog node and edge as the search index reads them (the catalog's read model owns them). */
export type {
  CatalogIndexEdge as CatalogEdge,
  CatalogIndexNode as CatalogNode,
} from '../catalog/read-model/search-queries.js';

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
