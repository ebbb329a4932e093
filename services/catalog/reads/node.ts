import type { ReadScope } from '../../access/grants.js';
import type { Queryable } from '../../database/queryable.js';
import { NotFound } from '../../runtime/errors.js';
import type { NodeContent } from '../content.js';
import {
  countNodesByLabel,
  getCatalogNode,
  getEdges,
  getNodeSummaries,
  listMonikersInUse,
} from '../read-model/queries.js';
import type { FetchNodeArgs, NodeView, SchemaDescription } from '../read-service.js';
import {
  DEFAULT_MONIKER,
  EDGE_TYPES,
  NODE_LABELS,
  RESOURCE_URI_TEMPLATE,
  UID_PATTERN,
} from '../vocabulary.js';
import { checkMoniker, notFound } from './lookup.js';

export const QUERY_HINT =
  'Plan multi-hop questions from this vocabulary instead of listing the catalog: pick the labels and edge types that connect what you know to what you need, then follow them with get_related (depth ≤ 2, filter edge_types and direction) or query_graph (bounded patterns such as (u:Unit)-[:partOf]->(m:Module)-[:partOf]->(p:LearningPath)). Use docs_search to find a starting uid, docs_fetch to read a node, get_learning_path for prerequisite order and resolve_xref for links (a uid, a site path or a URL of the site).';

/** The vocabulary with the scope's counts and monikers. */
export const describeSchema = async (
  db: Queryable,
  scope: ReadScope,
): Promise<SchemaDescription> => {
  const [counts, monikers] = await Promise.all([
    countNodesByLabel(db, scope),
    listMonikersInUse(db, scope),
  ]);
  return {
    labels: NODE_LABELS.map((spec) => ({
      label: spec.label,
      resourceType: spec.resourceType,
      description: spec.description,
      source: spec.source,
      required: spec.required.map(({ name, type, description }) => ({
        name,
        type,
        description,
      })),
      optional: spec.optional.map(({ name, type, description }) => ({
        name,
        type,
        description,
      })),
      count: counts.get(spec.label) ?? 0,
    })),
    edgeTypes: EDGE_TYPES.map(({ type, description, from, to }) => ({
      type,
      description,
      from,
      to,
    })),
    monikers: [...new Set([DEFAULT_MONIKER, ...monikers])],
    defaultMoniker: DEFAULT_MONIKER,
    uidPattern: UID_PATTERN.source,
    uriTemplate: RESOURCE_URI_TEMPLATE,
    hint: QUERY_HINT,
  };
};

/** One section of a page: its heading line down to the next heading of its level or above. */
const sectionOf = (
  content: NodeContent,
  anchor: string,
): { anchor: string; heading: string; body: string } => {
  const wanted = anchor.replace(/^#/, '');
  const sections = content.sections ?? [];
  const index = sections.findIndex((section) => section.anchor === wanted);
  const section = sections[index];
  if (!section) {
    const known = sections.map((s) => s.anchor);
    throw new NotFound(
      `Node "${content.uid}" has no section "${wanted}"${known.length > 0 ? `; its sections: ${known.slice(0, 40).join(', ')}${known.length > 40 ? ', …' : ''}` : ' (it has no headings)'}.`,
      { uid: content.uid, section: wanted, sections: known },
    );
  }
  const next = sections.slice(index + 1).find((later) => later.level <= section.level);
  return {
    anchor: section.anchor,
    heading: section.heading,
    body: content.body.slice(section.offset, next?.offset ?? content.body.length).trimEnd(),
  };
};

/** A node (or one section of it) with its edges both ways and their ends' titles. */
export const fetchNode = async (
  db: Queryable,
  scope: ReadScope,
  args: FetchNodeArgs,
): Promise<NodeView> => {
  const node = await getCatalogNode(db, scope, args.uid);
  if (!node) throw await notFound(db, scope, args.uid, 'Node');
  checkMoniker(args.uid, node.content.monikers, args.moniker);
  const inbound = await getEdges(db, scope, { uids: [args.uid], direction: 'in' });
  const titles = await getNodeSummaries(db, scope, [
    ...node.content.edges.map((edge) => edge.target),
    ...inbound.map((edge) => edge.source),
  ]);
  const { content } = node;
  const section = args.section === undefined ? undefined : sectionOf(content, args.section);
  return {
    uid: content.uid,
    label: content.label,
    title: content.title,
    summary: content.summary,
    body: section?.body ?? content.body,
    section: section ? { anchor: section.anchor, heading: section.heading } : null,
    product: content.product,
    monikers: content.monikers,
    attributes: content.attributes,
    sourcePath: content.sourcePath,
    contentHash: node.contentHash,
    lastModified: node.lastModified,
    uri: node.uri,
    edges: {
      outbound: content.edges.map((edge) => ({
        type: edge.type,
        uid: edge.target,
        title: titles.get(edge.target)?.title ?? null,
        ordinal: edge.ordinal,
        origin: edge.origin,
      })),
      inbound: inbound.map((edge) => ({
        type: edge.type,
        uid: edge.source,
        title: titles.get(edge.source)?.title ?? null,
      })),
    },
  };
};
