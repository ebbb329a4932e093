import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import {
  countNodesByLabel,
  getCatalogNode,
  getEdges,
  findSitePages,
  getNodeSummaries,
  listMonikersInUse,
  listSourceSites,
  listUidsAndTitles,
  type CatalogEdgeRow,
  type CatalogNodeSummary,
  type SitePathNode,
} from './read-model/queries.js';
import { catalogNodeUri } from './read-model/projection.js';
import type { Queryable } from '../database/queryable.js';
import type { ReadScope } from '../access/grants.js';
import { CogitaveError, InvalidArgument, NotFound } from '../runtime/errors.js';
import type { NodeContent } from './content.js';
import { findLearningPath, type LearningGraph } from './learning-path.js';
import { compareMonikers } from './site.js';
import { LEGACY_SOURCE } from './sources.js';
import { parseSiteReference, pathCandidates, pickVersion, sourcesAtUrl } from './xref.js';
import {
  DEFAULT_MONIKER,
  EDGE_TYPES,
  edgeTypeNames,
  MONIKER_HELP,
  MONIKER_PATTERN,
  NODE_LABELS,
  RESOURCE_URI_TEMPLATE,
  UID_PATTERN,
} from './vocabulary.js';

/**
 * The catalog's read side: typed, zod-validated inputs, coded errors, reads only from the
 * read model (`read_model.catalog_*`), never from the node streams.
 */
const uid = z.string().regex(UID_PATTERN, `a uid matches ${UID_PATTERN.source}`);
const moniker = z.string().regex(MONIKER_PATTERN, `a moniker is ${MONIKER_HELP}`);

export const fetchNodeInput = z.object({
  uid,
  moniker: moniker.optional(),
  section: z.string().min(1).max(200).optional(),
});
export const getRelatedInput = z.object({
  uid,
  edgeTypes: z.array(z.string()).optional(),
  direction: z.enum(['out', 'in', 'both']).default('both'),
  depth: z.number().int().min(1).max(2).default(1),
});
export const getLearningPathInput = z.object({
  targetUid: uid,
  knownUids: z.array(z.string()).max(1000).optional(),
});
export const resolveXrefInput = z.object({
  xref: z.string().min(1).max(400),
  moniker: moniker.optional(),
});

export type FetchNodeInput = z.input<typeof fetchNodeInput>;
export type GetRelatedInput = z.input<typeof getRelatedInput>;
export type GetLearningPathInput = z.input<typeof getLearningPathInput>;
export type ResolveXrefInput = z.input<typeof resolveXrefInput>;

export interface SchemaDescription {
  readonly labels: readonly {
    readonly label: string;
    readonly resourceType: string;
    readonly description: string;
    readonly source: 'catalog' | 'requests';
    readonly required: readonly { name: string; type: string; description: string }[];
    readonly optional: readonly { name: string; type: string; description: string }[];
    readonly count: number;
  }[];
  readonly edgeTypes: readonly {
    readonly type: string;
    readonly description: string;
    readonly from: readonly string[];
    readonly to: readonly string[];
  }[];
  readonly monikers: readonly string[];
  readonly defaultMoniker: string;
  readonly uidPattern: string;
  readonly uriTemplate: string;
  readonly hint: string;
}

export interface NodeView {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly summary: string;
  readonly body: string;
  readonly product: string | null;
  readonly monikers: readonly string[];
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly sourcePath: string | null;
  readonly contentHash: string;
  readonly lastModified: string;
  readonly uri: string;
  /** Set when one section was asked for: `body` is then that section only. */
  readonly section: { readonly anchor: string; readonly heading: string } | null;
  readonly edges: {
    readonly outbound: readonly {
      type: string;
      uid: string;
      title: string | null;
      ordinal: number;
      origin: string;
    }[];
    readonly inbound: readonly { type: string; uid: string; title: string | null }[];
  };
}

export interface RelatedNode {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly edgeType: string;
  /** `out`: `from` points at this node; `in`: this node points at `from`. */
  readonly direction: 'out' | 'in';
  readonly depth: number;
  readonly from: string;
}

export interface RelatedResult {
  readonly uid: string;
  readonly results: readonly RelatedNode[];
  readonly truncated: boolean;
}

export interface LearningStep {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly durationInMinutes: number | null;
  /** Why it is on the path: `target`, `prerequisite`, `part` (of a module/path), `teaches`. */
  readonly reason: string;
  readonly uri: string;
}

export interface LearningPathResult {
  readonly targetUid: string;
  readonly steps: readonly LearningStep[];
  readonly totalDurationInMinutes: number;
  /** Known uids that were on the way (skipped with everything they cover). */
  readonly skipped: readonly string[];
}

export interface XrefResolution {
  readonly uid: string;
  readonly label: string;
  readonly title: string;
  readonly uri: string;
  readonly moniker: string;
  /** The source the node belongs to (null: from before sources). */
  readonly source: string | null;
  /** Its site path, for pages of a site. */
  readonly path: string | null;
  /** The section a `#anchor` named, when the page has it. */
  readonly section: { readonly anchor: string; readonly heading: string } | null;
}

/**
 * Every method reads within the caller's scope (required): a node outside it answers exactly
 * as a missing one (NOT_FOUND, with suggestions from the scope only), edges to it are not
 * followed or listed, and counts and monikers are the scope's.
 */
export interface CatalogReadService {
  describeSchema(scope: ReadScope): Promise<SchemaDescription>;
  fetchNode(scope: ReadScope, input: FetchNodeInput): Promise<NodeView>;
  getRelated(scope: ReadScope, input: GetRelatedInput): Promise<RelatedResult>;
  getLearningPath(scope: ReadScope, input: GetLearningPathInput): Promise<LearningPathResult>;
  resolveXref(scope: ReadScope, input: ResolveXrefInput): Promise<XrefResolution>;
}

const parse = <T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> => {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`,
  );
  throw new InvalidArgument(`${what}: ${problems.join('; ')}`, { problems });
};

const MAX_RELATED = 200;

export const QUERY_HINT =
  'Plan multi-hop questions from this vocabulary instead of listing the catalog: pick the labels and edge types that connect what you know to what you need, then follow them with get_related (depth ≤ 2, filter edge_types and direction) or query_graph (bounded patterns such as (u:Unit)-[:partOf]->(m:Module)-[:partOf]->(p:LearningPath)). Use docs_search to find a starting uid, docs_fetch to read a node, get_learning_path for prerequisite order and resolve_xref for links (a uid, a site path or a URL of the site).';

/** `@uid`, `<xref:uid>`, `xref:uid`, each optionally with `?view=moniker`. */
export const parseXref = (xref: string): { uid: string; moniker?: string } | undefined => {
  const trimmed = xref.trim();
  const match =
    /^(?:<xref:([^>?#\s]+)(?:\?view=([^>#&\s]+))?[^>]*>|@([^?#\s]+)(?:\?view=([^#&\s]+))?|(?:xref:)?([^?#\s<>@]+)(?:\?view=([^#&\s]+))?)$/.exec(
      trimmed,
    );
  if (!match) return undefined;
  const raw = match[1] ?? match[3] ?? match[5];
  const view = match[2] ?? match[4] ?? match[6];
  if (raw === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  return view === undefined ? { uid: decoded } : { uid: decoded, moniker: view };
};

const closestMatches = (
  needle: string,
  candidates: readonly { uid: string; title: string; label: string }[],
  count = 5,
): { uid: string; title: string; label: string }[] => {
  const lower = needle.toLowerCase();
  return candidates
    .map((candidate) => ({
      candidate,
      score: Math.min(
        distance(lower, candidate.uid.toLowerCase()),
        distance(lower, candidate.title.toLowerCase()),
      ),
    }))
    .sort((a, b) => a.score - b.score || (a.candidate.uid < b.candidate.uid ? -1 : 1))
    .slice(0, count)
    .map(({ candidate }) => candidate);
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

const durationOf = (summary: CatalogNodeSummary): number | null => {
  const value = summary.attributes.durationInMinutes;
  return typeof value === 'number' ? value : null;
};

export const createCatalogReadService = ({
  db,
}: {
  readonly db: Queryable;
}): CatalogReadService => {
  const notFound = async (
    scope: ReadScope,
    uidOrRef: string,
    what: string,
  ): Promise<CogitaveError> => {
    const closest = closestMatches(uidOrRef, await listUidsAndTitles(db, scope));
    const suggestions = closest.map((c) => `${c.uid} (${c.title})`).join(', ');
    return new NotFound(
      `${what} "${uidOrRef}" is not in the catalog${suggestions ? `; closest: ${suggestions}` : ''}.`,
      { uid: uidOrRef, closest },
    );
  };

  const checkMoniker = (
    uidValue: string,
    monikers: readonly string[],
    wanted: string | undefined,
  ): void => {
    if (wanted === undefined || monikers.includes(wanted)) return;
    throw new NotFound(
      `Node "${uidValue}" has no version for moniker "${wanted}"; it exists in: ${monikers.join(', ')}.`,
      { uid: uidValue, moniker: wanted, monikers },
    );
  };

  const checkEdgeTypes = (types: readonly string[] | undefined): void => {
    const unknown = (types ?? []).filter((type) => !edgeTypeNames.includes(type));
    if (unknown.length > 0) {
      throw new InvalidArgument(
        `unknown edge type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; known: ${edgeTypeNames.join(', ')}`,
        { unknown },
      );
    }
  };

  return {
    describeSchema: async (scope) => {
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
    },

    fetchNode: async (scope, input) => {
      const args = parse(fetchNodeInput, input, 'fetchNode');
      const node = await getCatalogNode(db, scope, args.uid);
      if (!node) throw await notFound(scope, args.uid, 'Node');
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
    },

    getRelated: async (scope, input) => {
      const args = parse(getRelatedInput, input, 'getRelated');
      checkEdgeTypes(args.edgeTypes);
      const start = await getNodeSummaries(db, scope, [args.uid]);
      if (!start.has(args.uid)) throw await notFound(scope, args.uid, 'Node');
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
    },

    getLearningPath: async (scope, input) => {
      const args = parse(getLearningPathInput, input, 'getLearningPath');
      const target = await getNodeSummaries(db, scope, [args.targetUid]);
      if (!target.has(args.targetUid)) throw await notFound(scope, args.targetUid, 'Node');
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
      const { order, skipped } = findLearningPath(
        graph,
        args.targetUid,
        new Set(args.knownUids ?? []),
      );
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
    },

    resolveXref: async (scope, input) => {
      const args = parse(resolveXrefInput, input, 'resolveXref');
      const trimmed = args.xref.trim();
      const [written = '', hashAnchor] = trimmed.startsWith('<')
        ? [trimmed, undefined]
        : trimmed.split('#', 2);
      const parsed = parseXref(written);
      const asUid = parsed && UID_PATTERN.test(parsed.uid) ? parsed : undefined;
      const site = parseSiteReference(args.xref);
      if (!asUid && !site) {
        throw new InvalidArgument(
          `"${args.xref}" is not an xref; write a uid (@uid, <xref:uid>, xref:uid or uid), a site path (/guide/page#section) or a URL of the site, optionally with ?view=moniker`,
        );
      }
      const wanted = args.moniker ?? asUid?.moniker;
      if (wanted !== undefined && !MONIKER_PATTERN.test(wanted)) {
        throw new InvalidArgument(`moniker "${wanted}" must be ${MONIKER_HELP}`);
      }
      const answer = (node: SitePathNode, anchor: string | undefined): XrefResolution => {
        const section =
          anchor === undefined
            ? undefined
            : (node.sections ?? []).find((candidate) => candidate.anchor === anchor);
        return {
          uid: node.uid,
          label: node.label,
          title: node.title,
          uri: catalogNodeUri(node.label, node.uid),
          moniker:
            wanted ??
            (node.monikers.includes(DEFAULT_MONIKER)
              ? DEFAULT_MONIKER
              : (node.monikers[0] ?? DEFAULT_MONIKER)),
          source: node.source,
          path: node.path,
          section: section ? { anchor: section.anchor, heading: section.heading } : null,
        };
      };
      if (asUid) {
        const [node] = await findSitePages(db, scope, { uids: [asUid.uid] });
        if (node?.uid === asUid.uid) {
          if (wanted === undefined || node.monikers.includes(wanted))
            return answer(node, hashAnchor);
          // Another version of the same page may carry the moniker.
          const versions =
            node.page === null
              ? []
              : await findSitePages(db, scope, {
                  paths: [node.page],
                  ...(node.source === null ? {} : { sources: [node.source] }),
                });
          const other = pickVersion(
            versions.filter((v) => v.page === node.page),
            node.page ?? '',
            wanted,
          );
          if (other) return answer(other, hashAnchor);
          checkMoniker(node.uid, node.monikers, wanted);
        }
      }
      if (site) {
        const sites = site.url ? sourcesAtUrl(site.url, await listSourceSites(db)) : undefined;
        // A URL of a site no source names: its path may still be a page of one.
        const path = sites?.path ?? site.path;
        const found = await findSitePages(db, scope, {
          paths: pathCandidates(path),
          ...(sites ? { sources: sites.sources } : {}),
        });
        const bySource = new Map<string, SitePathNode[]>();
        for (const node of found) {
          const key = node.source ?? LEGACY_SOURCE;
          bySource.set(key, [...(bySource.get(key) ?? []), node]);
        }
        const picks = [...bySource.values()].flatMap((nodes) => {
          const exact = nodes.filter((node) => node.path === path);
          const pick = pickVersion(
            exact.length > 0 && wanted === undefined ? exact : nodes,
            path,
            wanted,
          );
          return pick ? [pick] : [];
        });
        if (picks.length > 1) {
          throw new InvalidArgument(
            `"${args.xref}" is a page of ${picks.length} sources: ${picks.map((p) => `${p.uid} (${p.source ?? LEGACY_SOURCE})`).join(', ')}; give its uid`,
            { candidates: picks.map((p) => ({ uid: p.uid, source: p.source })) },
          );
        }
        const [pick] = picks;
        if (pick) return answer(pick, site.anchor);
        if (found.length > 0 && wanted !== undefined) {
          const monikers = [...new Set(found.flatMap((node) => node.monikers))].sort(
            compareMonikers,
          );
          throw new NotFound(
            `"${args.xref}" has no version for moniker "${wanted}"; it exists in: ${monikers.join(', ')}.`,
            { moniker: wanted, monikers },
          );
        }
      }
      throw await notFound(scope, asUid?.uid ?? site?.path ?? args.xref, 'Xref target');
    },
  };
};
