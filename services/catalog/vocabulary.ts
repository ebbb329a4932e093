import type { ReadScope } from '../access/grants.js';

/**
 * The catalog's closed vocabulary: node labels, typed edges, required attributes per label and
 * monikers. It is data in one place; ingest validation, `describe_schema`, the resource URI
 * types and the `query_graph` allowlist all derive from it, so they cannot disagree.
 */

export interface AttributeSpec {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'string[]';
  readonly description: string;
}

export interface LabelSpec {
  /** The node label as it appears in `query_graph` patterns (`(u:Unit)`). */
  readonly label: string;
  /** The `{type}` segment of its resource URIs (`cogitave://unit/{id}`). */
  readonly resourceType: string;
  readonly description: string;
  /** Attributes every node of this label must carry (besides uid, title, summary). */
  readonly required: readonly AttributeSpec[];
  readonly optional: readonly AttributeSpec[];
  /** Where nodes of this label come from. */
  readonly source: 'catalog' | 'requests';
}

export interface EdgeSpec {
  /** The relationship type as it appears in `query_graph` patterns (`-[:partOf]->`). */
  readonly type: string;
  readonly description: string;
  /** Labels allowed at each end; empty means any label. */
  readonly from: readonly string[];
  readonly to: readonly string[];
}

const DURATION: AttributeSpec = {
  name: 'durationInMinutes',
  type: 'integer',
  description: 'Estimated time to complete, in minutes.',
};

export const NODE_LABELS: readonly LabelSpec[] = [
  {
    label: 'Doc',
    resourceType: 'doc',
    description: 'Reference or conceptual documentation page.',
    required: [],
    optional: [],
    source: 'catalog',
  },
  {
    label: 'Article',
    resourceType: 'article',
    description: 'A how-to, tutorial or explanatory article.',
    required: [],
    optional: [],
    source: 'catalog',
  },
  {
    label: 'Unit',
    resourceType: 'unit',
    description: 'One lesson of a learning module (the shape of a learning-module unit).',
    required: [DURATION],
    optional: [
      { name: 'href', type: 'string', description: 'Path of the unit on a docs site.' },
      { name: 'headings', type: 'string[]', description: 'The unit’s section headings, in order.' },
    ],
    source: 'catalog',
  },
  {
    label: 'Module',
    resourceType: 'module',
    description: 'A learning module: an ordered set of units (units point at it with partOf).',
    required: [],
    optional: [DURATION],
    source: 'catalog',
  },
  {
    label: 'LearningPath',
    resourceType: 'learning-path',
    description: 'An ordered sequence of modules toward a goal (modules point at it with partOf).',
    required: [],
    optional: [DURATION],
    source: 'catalog',
  },
  {
    label: 'ADR',
    resourceType: 'adr',
    description: 'An architecture decision record.',
    required: [
      {
        name: 'status',
        type: 'string',
        description: 'proposed | accepted | deprecated | superseded',
      },
      { name: 'date', type: 'string', description: 'Decision date, YYYY-MM-DD.' },
    ],
    optional: [],
    source: 'catalog',
  },
  {
    label: 'Skill',
    resourceType: 'skill',
    description: 'A capability a reader gains; units and modules teach skills.',
    required: [],
    optional: [],
    source: 'catalog',
  },
  {
    label: 'CodeSample',
    resourceType: 'code-sample',
    description:
      'A code block extracted from a node (`:::code` or fenced); TypeScript/JavaScript ones are compile-checked at ingest.',
    required: [
      { name: 'language', type: 'string', description: 'Language tag of the block.' },
      { name: 'sourceUid', type: 'string', description: 'UID of the node it was taken from.' },
    ],
    optional: [
      {
        name: 'compiled',
        type: 'boolean',
        description: 'true: type-checked clean; false: diagnostics; absent: not checkable.',
      },
      {
        name: 'diagnostics',
        type: 'string[]',
        description: 'The first compiler diagnostics (line:column message) when compiled is false.',
      },
    ],
    source: 'catalog',
  },
  {
    label: 'Request',
    resourceType: 'request',
    description: 'A work request of the lifecycle (read model of the requests projection).',
    required: [
      { name: 'stage', type: 'string', description: 'Current lifecycle stage.' },
      {
        name: 'status',
        type: 'string',
        description: 'draft (proposed) | active | closed (done, rejected, withdrawn, superseded)',
      },
    ],
    optional: [],
    source: 'requests',
  },
];

export const EDGE_TYPES: readonly EdgeSpec[] = [
  {
    type: 'partOf',
    description: 'Containment: a unit is part of a module, a module of a learning path.',
    from: [],
    to: [],
  },
  {
    type: 'dependsOn',
    description: 'The source needs the target (a component, a decision, a document).',
    from: [],
    to: [],
  },
  {
    type: 'xref',
    description:
      'A link in the text: a Markdown or component link to another page (relative or site path, optionally to a section), `<xref:uid>`, or an `@uid` that names a node.',
    from: [],
    to: [],
  },
  {
    type: 'prerequisiteOf',
    description: 'Learning order: the source should be learned before the target.',
    from: ['Unit', 'Module', 'Skill', 'LearningPath', 'Doc', 'Article'],
    to: ['Unit', 'Module', 'Skill', 'LearningPath', 'Doc', 'Article'],
  },
  {
    type: 'supersedes',
    description: 'The source replaces the target (typically one ADR superseding another).',
    from: [],
    to: [],
  },
  { type: 'relatedTo', description: 'A loose association worth following.', from: [], to: [] },
  {
    type: 'teaches',
    description: 'A unit, module or learning path teaches a skill.',
    from: ['Unit', 'Module', 'LearningPath'],
    to: ['Skill'],
  },
  {
    type: 'exampleOf',
    description: 'A code sample was taken from the target node.',
    from: ['CodeSample'],
    to: [],
  },
];

/**
 * Versions of the docs. `latest` is the newest released version (and every page that is not
 * versioned); dates (`2025-11-25`, `2026-01`), release numbers (`v2`, `3.1`, `2.x`) and
 * pre-release channels (`draft`, `next`, `preview`, ...) name the others.
 */
export const DEFAULT_MONIKER = 'latest';
// Learn monikers name a product and its version (`net-maui-9.0`, `aspnetcore-8.0`).
export const MONIKER_PATTERN =
  /^(latest|stable|draft|next|current|preview|unreleased|canary|\d{4}-\d{2}(-\d{2})?|v?\d+(\.(\d+|x))*(-[a-z0-9.]+)?|[a-z][a-z0-9]*(-[a-z][a-z0-9]*)*-v?\d+(\.(\d+|x))*)$/;
export const MONIKER_HELP =
  '"latest", a date (YYYY-MM or YYYY-MM-DD), a release (v2, 3.1, 2.x), a product release (net-maui-9.0) or stable, draft, next, preview';

/**
 * Node UIDs: stable, URL-safe, human-readable. Written ones look like
 * `cogitave.architecture.event-store`; pages without one get `<source>/<site path>`
 * (`mcp/specification/2025-11-25/client/sampling`).
 */
export const UID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;

/** Every node and request resolves to `cogitave://{type}/{id}`. */
export const RESOURCE_URI_TEMPLATE = 'cogitave://{type}/{id}';

export const labelNames: readonly string[] = NODE_LABELS.map((spec) => spec.label);
export const edgeTypeNames: readonly string[] = EDGE_TYPES.map((spec) => spec.type);

export const labelSpec = (label: string): LabelSpec | undefined =>
  NODE_LABELS.find((spec) => spec.label === label);

export const edgeSpec = (type: string): EdgeSpec | undefined =>
  EDGE_TYPES.find((spec) => spec.type === type);

export const labelForResourceType = (resourceType: string): LabelSpec | undefined =>
  NODE_LABELS.find((spec) => spec.resourceType === resourceType);

/**
 * The labels (of `source`) a read scope may read, or null when it may read every one: what a
 * query binds to keep rows of other types out.
 */
export const labelsInScope = (
  scope: ReadScope,
  source: LabelSpec['source'] | 'any' = 'any',
): string[] | null => {
  const { types } = scope;
  if (types === '*') return null;
  return NODE_LABELS.filter(
    (spec) => (source === 'any' || spec.source === source) && types.includes(spec.resourceType),
  ).map((spec) => spec.label);
};
