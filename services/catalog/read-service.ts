import type { NodeFields } from './content.js';
import { z } from 'zod';
import type { Queryable } from '../database/queryable.js';
import type { ReadScope } from '../access/grants.js';
import { InvalidArgument } from '../runtime/errors.js';
import { describeSchema, fetchNode } from './reads/node.js';
import { resolveXref } from './reads/resolve-xref.js';
import { getLearningPath, getRelated } from './reads/walks.js';
import { MONIKER_HELP, MONIKER_PATTERN, UID_PATTERN } from './vocabulary.js';

export { QUERY_HINT } from './reads/node.js';
export { parseXref } from './reads/resolve-xref.js';

/**
 * The catalog's read side: typed, zod-validated inputs, coded errors, reads only from the
 * read model (its typed queries in `read-model/`), never from the node streams. Each read is a
 * function of its own in `reads/`; this service parses the input and calls it.
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
export type FetchNodeArgs = z.output<typeof fetchNodeInput>;
export type GetRelatedArgs = z.output<typeof getRelatedInput>;
export type GetLearningPathArgs = z.output<typeof getLearningPathInput>;
export type ResolveXrefArgs = z.output<typeof resolveXrefInput>;

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

export interface NodeView extends NodeFields {
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

export const createCatalogReadService = ({
  db,
}: {
  readonly db: Queryable;
}): CatalogReadService => ({
  describeSchema: (scope) => describeSchema(db, scope),
  fetchNode: async (scope, input) =>
    fetchNode(db, scope, parse(fetchNodeInput, input, 'fetchNode')),
  getRelated: async (scope, input) =>
    getRelated(db, scope, parse(getRelatedInput, input, 'getRelated')),
  getLearningPath: async (scope, input) =>
    getLearningPath(db, scope, parse(getLearningPathInput, input, 'getLearningPath')),
  resolveXref: async (scope, input) =>
    resolveXref(db, scope, parse(resolveXrefInput, input, 'resolveXref')),
});
