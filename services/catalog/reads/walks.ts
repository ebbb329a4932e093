import type { ReadScope } from '../../access/grants.js';
import type { Queryable } from '../../database/queryable.js';
import { findLearningPath, type LearningGraph } from '../learning-path.js';
import { catalogNodeUri } from '../read-model/projection.js';
import {
  getEdges,
  getNodeSummaries,
  type CatalogEdgeRow,
  type CatalogNodeSummary,
} from '../read-model/queries.js';
import type {
  GetLearningPathArgs,
  GetRelatedArgs,
  LearningPathResult,
  RelatedResult,
} from '../read-service.js';
import { checkEdgeTypes, notFound } from './lookup.js';

// Walks of the catalog's edges within the scope: related nodes and learning paths.

/** Related nodes answered at most; more are cut and the answer says `truncated`. */
const MAX_RELATED = 200;

const durationOf = (summary: CatalogNodeSummary): number | null => {
  const value = summary.attributes.durationInMinutes;
  return typeof value === 'number' ? value : null;
};

/** Nodes up to `depth` edges away, breadth first, each reached once. */
export const getRelated = async (
  db: Queryable,
  scope: ReadScope,
  args: GetRelatedArgs,
): Promise<RelatedResult> => {
  checkEdgeTypes(args.edgeTypes);
  const start = await getNodeSummaries(db, scope, [args.uid]);
  if (!start.has(args.uid)) throw await notFound(db, scope, args.uid, 'Node');
  const seen = new Set([args.uid]);
  const hops: {
    edge: CatalogEdgeRow;
    uid: string;
    from: string;
    direction: 'out' | 'in';
    depth: number;
  }[] = [];
  let frontier = [args.uid];
  for (let depth = 1; depth <= args.depth && frontier.length > 0; depth += 1) {
    const directions = args.direction === 'both' ? (['out', 'in'] as const) : [args.direction];
    const next: string[] = [];
    for (const direction of directions) {
      const edges = await getEdges(db, scope, {
        uids: frontier,
        direction,
        types: args.edgeTypes,
      });
      for (const edge of edges) {
        const [from, to] =
          direction === 'out' ? [edge.source, edge.target] : [edge.target, edge.source];
        if (seen.has(to)) continue;
        seen.add(to);
        next.push(to);
        hops.push({ edge, uid: to, from, direction, depth });
      }
    }
    frontier = next;
  }
  const truncated = hops.length > MAX_RELATED;
  const kept = hops.slice(0, MAX_RELATED);
  const summaries = await getNodeSummaries(
    db,
    scope,
    kept.map((hop) => hop.uid),
  );
  return {
    uid: args.uid,
    truncated,
    results: kept.map((hop) => ({
      uid: hop.uid,
      label: summaries.get(hop.uid)?.label ?? '',
      title: summaries.get(hop.uid)?.title ?? '',
      edgeType: hop.edge.type,
      direction: hop.direction,
      depth: hop.depth,
      from: hop.from,
    })),
  };
};

/** What leads to a target (prerequisites, parts, teachers), in learning order. */
export const getLearningPath = async (
  db: Queryable,
  scope: ReadScope,
  args: GetLearningPathArgs,
): Promise<LearningPathResult> => {
  const target = await getNodeSummaries(db, scope, [args.targetUid]);
  if (!target.has(args.targetUid)) throw await notFound(db, scope, args.targetUid, 'Node');
  // Gather what leads to the target: prerequisites, parts (units of a module), teachers.
  const graph: LearningGraph = { nodes: new Map(target), incoming: new Map() };
  let frontier = [args.targetUid];
  while (frontier.length > 0 && graph.nodes.size <= 2000) {
    const edges = await getEdges(db, scope, {
      uids: frontier,
      direction: 'in',
      types: ['prerequisiteOf', 'partOf', 'teaches'],
    });
    const fresh = [...new Set(edges.map((edge) => edge.source))].filter(
      (uidValue) => !graph.nodes.has(uidValue),
    );
    for (const edge of edges) {
      const list = graph.incoming.get(edge.target) ?? [];
      list.push(edge);
      graph.incoming.set(edge.target, list);
    }
    const summaries = await getNodeSummaries(db, scope, fresh);
    for (const [key, value] of summaries) graph.nodes.set(key, value);
    frontier = fresh;
  }
  const { order, skipped } = findLearningPath(graph, args.targetUid, new Set(args.knownUids ?? []));
  const steps = order.map(({ uid: stepUid, reason }) => {
    const summary = graph.nodes.get(stepUid);
    const label = summary?.label ?? '';
    return {
      uid: stepUid,
      label,
      title: summary?.title ?? '',
      durationInMinutes: summary ? durationOf(summary) : null,
      reason,
      uri: catalogNodeUri(label, stepUid),
    };
  });
  // A container's own duration is not added when its parts are on the path (no double count).
  const containers = new Set(
    order
      .filter((step) => order.some((other) => other.parent === step.uid))
      .map((step) => step.uid),
  );
  return {
    targetUid: args.targetUid,
    steps,
    totalDurationInMinutes: steps
      .filter((step) => !containers.has(step.uid))
      .reduce((sum, step) => sum + (step.durationInMinutes ?? 0), 0),
    skipped,
  };
};
