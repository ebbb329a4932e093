import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { NodeContent, NodeEdge, NodeSection } from './content.js';
import { withArticle, type Collected, type CorpusIssue } from './issues.js';
import { adrFieldsFromBody, inferLabel, labelForKind } from './labels.js';
import { parsePage, splitFrontMatter, type ParsedPage } from './page.js';
import type { PageLocation, Site } from './site.js';
import { locateDocusaurusPage } from './site-docusaurus.js';
import {
  DEFAULT_MONIKER,
  MONIKER_HELP,
  MONIKER_PATTERN,
  NODE_LABELS,
  UID_PATTERN,
  type AttributeSpec,
  type LabelSpec,
} from './vocabulary.js';

/**
 * One page (or JSON learning-module unit) of a folder as a node: uid from front matter
 * (`uid`, Docusaurus `id`) or the path, title from front matter, the first heading or the
 * navigation, summary from `description`/`summary` or the first paragraph, label from
 * `label:`/`kind:` or inferred (labels.ts), monikers from its version folder, every other key
 * kept as an attribute.
 */
/** Front-matter keys that are edges; `xref` and `exampleOf` are derived, never declared. */
export const DECLARED_EDGES = [
  'partOf',
  'dependsOn',
  'prerequisiteOf',
  'supersedes',
  'relatedTo',
  'teaches',
];
/** Front-matter keys the node itself uses (not kept as attributes). */
const NODE_FIELDS = new Set([
  'uid',
  'id',
  'slug',
  'label',
  'kind',
  'title',
  'summary',
  'description',
  'product',
  'monikers',
]);
/** Learning-module unit fields that carry no catalog meaning. */
const UNIT_EXTRA_FIELDS = new Set([
  'type',
  'products',
  'roles',
  'levels',
  'subjects',
  'quiz',
  'source',
]);

const checkAttribute = (spec: AttributeSpec, value: unknown): string | undefined => {
  switch (spec.type) {
    case 'string':
      return typeof value === 'string' && value.trim() !== ''
        ? undefined
        : 'must be a non-empty string';
    case 'integer':
      return Number.isInteger(value) && (value as number) >= 0
        ? undefined
        : 'must be a whole number, 0 or more';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string')
        ? undefined
        : 'must be a list of strings';
  }
};

/** YAML reads `2026-01-05` as a Date: the catalog keeps dates as the text that was written. */
const plain = (value: unknown): unknown => {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
};

const edgeTargets = (value: unknown): { target: string; ordinal?: number }[] | string => {
  const items: unknown[] = Array.isArray(value) ? (value as unknown[]) : [value];
  const out: { target: string; ordinal?: number }[] = [];
  for (const item of items) {
    if (typeof item === 'string' && item.trim() !== '') {
      out.push({
        target: item
          .trim()
          .replace(/^@/, '')
          .replace(/^xref:/, ''),
      });
    } else if (typeof item === 'object' && item !== null) {
      const entry = item as { uid?: unknown; ordinal?: unknown };
      if (typeof entry.uid !== 'string') return 'each {uid, ordinal} entry needs a uid';
      const ordinal = entry.ordinal;
      if (ordinal !== undefined && !Number.isInteger(ordinal))
        return 'ordinal must be a whole number';
      out.push(
        ordinal === undefined
          ? { target: entry.uid }
          : { target: entry.uid, ordinal: ordinal as number },
      );
    } else {
      return 'must be a uid, a list of uids, or {uid, ordinal} entries';
    }
  }
  return out;
};

const humanize = (file: string): string => {
  const name = file.replace(/\.[^./]+$/, '').split('/');
  const last =
    name.at(-1) === 'index' || name.at(-1)?.toLowerCase() === 'readme' ? name.at(-2) : name.at(-1);
  // A dated blog post (2023-11-13-curious-ternaries) is named by its slug, not its date.
  const words = (last ?? 'Untitled')
    .replace(/^\d{4}-\d{1,2}-\d{1,2}[-_](?=.)/, '')
    .replace(/^\d+[-_.]/, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  return words.length === 0 ? 'Untitled' : words.charAt(0).toUpperCase() + words.slice(1);
};

/** A uid from a site path: the characters of the uid pattern only, at most 200 of them. */
export const uidFromPath = (source: string, path: string): string => {
  const clean = `${source}${path === '/' ? '/index' : path}`
    .replace(/[^A-Za-z0-9._/-]+/g, '-')
    .replace(/\/{2,}/g, '/')
    .replace(/^[^A-Za-z0-9]+/, '');
  if (clean.length <= 200) return clean;
  const hash = createHash('sha256').update(clean).digest('hex').slice(0, 10);
  return `${clean.slice(0, 189)}-${hash}`;
};

/** A page or unit read from a file, before its links are resolved. */
export interface Draft {
  readonly file: string;
  readonly fields: Record<string, unknown>;
  readonly parsed: ParsedPage;
  /** Lines before the body in the file (front matter), so reports name file lines. */
  readonly bodyOffset: number;
  readonly location: PageLocation | undefined;
  readonly isUnit: boolean;
}

export interface BuiltNode {
  readonly draft: Draft;
  readonly content: NodeContent;
}

const isUnitJson = (fields: Record<string, unknown>): boolean =>
  typeof fields.uid === 'string' &&
  (typeof fields.kind === 'string' || typeof fields.label === 'string');

/** Whether a page file is read as MDX (by its extension, or the site's convention). */
export const isMdx = (file: string, site: Pick<Site, 'mdMeansMdx'>): boolean =>
  /\.mdx$/i.test(file) || site.mdMeansMdx;

/** A Markdown or MDX file read into its front matter and parsed page, or why it cannot be. */
export type MarkdownFile =
  | {
      readonly kind: 'page';
      readonly page: Pick<Draft, 'fields' | 'parsed' | 'bodyOffset'>;
    }
  | { readonly kind: 'invalid'; readonly issue: CorpusIssue };

/** Pure (no I/O, no site object): runs in page-parse worker threads as well as here. */
export const parseMarkdownFile = (file: string, text: string, mdx: boolean): MarkdownFile => {
  let front;
  try {
    front = splitFrontMatter(text);
  } catch (error) {
    return {
      kind: 'invalid',
      issue: {
        file,
        field: '(front matter)',
        reason: `not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`,
        fix: 'fix the YAML between the --- lines (quote values that contain ": " or start with a special character)',
        line: 1,
      },
    };
  }
  const body = front?.body ?? text;
  return {
    kind: 'page',
    page: {
      fields: front?.data ?? {},
      parsed: parsePage(body, { mdx }),
      bodyOffset: text.slice(0, text.length - body.length).split('\n').length - 1,
    },
  };
};

/** A JSON learning-module unit as a draft node, or what it is instead (skipped, an error). */
const unitDraft = (
  file: string,
  text: string,
  location: PageLocation | undefined,
  collected: Collected,
): Draft | undefined => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    collected.skipped.push({
      file,
      reason: `JSON that does not parse (${(error as Error).message}), so not a learning-module unit`,
      fix: 'fix the JSON if it is a unit; otherwise nothing to do',
    });
    return undefined;
  }
  const fields =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  if (!fields || !isUnitJson(fields)) {
    collected.skipped.push({
      file,
      reason: 'JSON data, not a page (a learning-module unit has uid and kind)',
      fix: 'nothing to do; to ingest it as a unit, give it uid, kind: moduleUnit, title and source (its Markdown)',
    });
    return undefined;
  }
  const source = fields.source ?? '';
  if (typeof source !== 'string') {
    collected.errors.push({
      file,
      field: 'source',
      reason: 'must be Markdown text',
      fix: 'put the unit’s Markdown in source as a string',
    });
    return undefined;
  }
  return {
    file,
    fields,
    parsed: parsePage(source, { mdx: false }),
    bodyOffset: 0,
    location,
    isUnit: true,
  };
};

/**
 * A file of the folder as a draft node. A Markdown page may come already parsed (`parsed`,
 * from the page-parse workers); otherwise it is read and parsed here.
 */
export const readDraft = async (
  root: string,
  file: string,
  site: Site,
  location: PageLocation | undefined,
  collected: Collected,
  parsed?: MarkdownFile,
): Promise<Draft | undefined> => {
  if (parsed === undefined && file.endsWith('.json'))
    return unitDraft(file, await readFile(join(root, file), 'utf8'), location, collected);
  const markdown =
    parsed ?? parseMarkdownFile(file, await readFile(join(root, file), 'utf8'), isMdx(file, site));
  if (markdown.kind === 'invalid') {
    collected.errors.push(markdown.issue);
    return undefined;
  }
  // Docusaurus routes depend on front matter (id, slug): placed again now that it is read.
  const routed =
    site.docusaurus && location?.routed
      ? (locateDocusaurusPage(site.docusaurus, file, markdown.page.fields) ?? location)
      : location;
  return { file, ...markdown.page, location: routed, isUnit: false };
};

interface LabelChoice {
  readonly spec: LabelSpec;
  readonly explicit: boolean;
}

const chooseLabel = (draft: Draft, collected: Collected): LabelChoice | undefined => {
  const { file, fields } = draft;
  const declared = fields.label ?? fields.kind;
  const field = fields.label !== undefined ? 'label' : 'kind';
  const allowed = NODE_LABELS.filter((s) => s.source === 'catalog' && s.label !== 'CodeSample').map(
    (s) => s.label,
  );
  if (declared !== undefined) {
    const spec = typeof declared === 'string' ? labelForKind(declared) : undefined;
    if (!spec || spec.label === 'CodeSample') {
      collected.errors.push({
        file,
        field,
        reason:
          spec?.label === 'CodeSample'
            ? 'CodeSample nodes are extracted from code blocks, not written as files'
            : `must be one of ${allowed.join(', ')} (got ${JSON.stringify(declared)})`,
        fix: `write one of ${allowed.join(', ')}, or remove ${field}: to let the folder decide`,
      });
      return undefined;
    }
    return { spec, explicit: true };
  }
  const inferred = inferLabel(file, fields);
  let spec = labelForKind(inferred.label);
  if (spec?.label === 'ADR') {
    const found = adrFieldsFromBody(draft.parsed.body);
    const missing = ['status', 'date'].filter(
      (name) => fields[name] === undefined && found[name as 'status' | 'date'] === undefined,
    );
    if (missing.length > 0) {
      collected.warnings.push({
        file,
        field: 'label',
        reason: `looks like an ADR (${inferred.from}) but has no ${missing.join(' or ')}; ingested as a Doc`,
        fix: `add ${missing.map((m) => `${m}:`).join(' and ')} to its front matter (status: proposed | accepted | deprecated | superseded, date: YYYY-MM-DD), or label: Doc`,
      });
      spec = labelForKind('Doc');
    }
  }
  return spec ? { spec, explicit: false } : undefined;
};

const checkLabelAttributes = (
  draft: Draft,
  choice: LabelChoice,
  collected: Collected,
): Record<string, unknown> | undefined => {
  const { file, fields } = draft;
  const { spec } = choice;
  const attributes: Record<string, unknown> = {};
  const before = collected.errors.length;
  const fromBody = spec.label === 'ADR' ? adrFieldsFromBody(draft.parsed.body) : {};
  for (const attribute of [...spec.required, ...spec.optional]) {
    const value = plain(fields[attribute.name] ?? fromBody[attribute.name as 'status' | 'date']);
    if (value === undefined || value === null) {
      if (spec.required.includes(attribute)) {
        collected.errors.push({
          file,
          field: attribute.name,
          reason: `is required for ${withArticle(spec.label)} (${attribute.description})`,
          fix: `add ${attribute.name}: to the front matter, or change the label`,
        });
      }
      continue;
    }
    const reason = checkAttribute(attribute, value);
    if (reason)
      collected.errors.push({
        file,
        field: attribute.name,
        reason,
        fix: `write ${attribute.name} as ${attribute.type}`,
      });
    else attributes[attribute.name] = value;
  }
  if (
    spec.label === 'ADR' &&
    typeof attributes.status === 'string' &&
    !['proposed', 'accepted', 'deprecated', 'superseded'].includes(attributes.status)
  ) {
    collected.errors.push({
      file,
      field: 'status',
      reason: `must be proposed, accepted, deprecated or superseded (got "${attributes.status}")`,
      fix: 'use one of the four ADR statuses',
    });
  }
  if (
    spec.label === 'ADR' &&
    typeof attributes.date === 'string' &&
    !/^\d{4}-\d{2}-\d{2}$/.test(attributes.date)
  ) {
    collected.errors.push({
      file,
      field: 'date',
      reason: `must be YYYY-MM-DD (got "${attributes.date}")`,
      fix: 'write the date as YYYY-MM-DD',
    });
  }
  return collected.errors.length > before ? undefined : attributes;
};

const declaredEdges = (draft: Draft, collected: Collected): NodeEdge[] => {
  const { file, fields } = draft;
  const edges: NodeEdge[] = [];
  for (const type of DECLARED_EDGES) {
    if (fields[type] === undefined || fields[type] === null) continue;
    const targets = edgeTargets(fields[type]);
    if (typeof targets === 'string') {
      collected.errors.push({
        file,
        field: type,
        reason: targets,
        fix: `write ${type}: as a uid, a list of uids or {uid, ordinal} entries`,
      });
      continue;
    }
    targets.forEach(({ target, ordinal }, index) => {
      if (edges.some((edge) => edge.type === type && edge.target === target)) {
        collected.errors.push({
          file,
          field: type,
          reason: `"${target}" is listed twice`,
          fix: 'list each target once',
        });
      } else edges.push({ type, target, ordinal: ordinal ?? index, origin: 'frontMatter' });
    });
  }
  for (const type of ['xref', 'exampleOf']) {
    if (fields[type] !== undefined) {
      collected.warnings.push({
        file,
        field: type,
        reason: `"${type}" edges are derived from the text, not declared; ignored`,
        fix: `link in the text instead, or remove ${type}:`,
      });
    }
  }
  return edges;
};

const monikersOf = (
  draft: Draft,
  latest: ReadonlyMap<string, string>,
  collected: Collected,
): string[] | undefined => {
  const raw = draft.fields.monikers;
  if (raw !== undefined) {
    const monikers = (Array.isArray(raw) ? raw.map(plain) : [plain(raw)]).map((m) =>
      typeof m === 'string' ? m.toLowerCase() : m,
    );
    const bad = monikers.find((m) => typeof m !== 'string' || !MONIKER_PATTERN.test(m));
    if (bad !== undefined || monikers.length === 0) {
      collected.errors.push({
        file: draft.file,
        field: 'monikers',
        reason: `each must be ${MONIKER_HELP} (got ${JSON.stringify(bad ?? raw)})`,
        fix: 'write the versions the page belongs to, e.g. monikers: [latest, 2025-11-25]',
      });
      return undefined;
    }
    return monikers as string[];
  }
  const { location } = draft;
  if (location?.version === undefined) return [DEFAULT_MONIKER];
  const isLatest =
    location.versionGroup !== undefined && latest.get(location.versionGroup) === location.version;
  return isLatest ? [location.version, DEFAULT_MONIKER] : [location.version];
};

/** The uid a page gets: written (`uid:`), its Docusaurus `id:` in its folder, or its path. */
const uidOf = (draft: Draft, source: string, collected: Collected): string | undefined => {
  const { fields, file } = draft;
  if (fields.uid !== undefined) {
    if (typeof fields.uid === 'string' && UID_PATTERN.test(fields.uid)) return fields.uid;
    collected.errors.push({
      file,
      field: 'uid',
      reason: `must match ${UID_PATTERN.source} (got ${JSON.stringify(fields.uid)})`,
      fix: 'use letters, digits, ".", "_", "-" and "/" (at most 200), or remove uid: to use the page’s path',
    });
    return undefined;
  }
  const path = draft.location?.path ?? `/${file.replace(/\.[^./]+$/, '')}`;
  if (!draft.location?.routed && typeof fields.id === 'string' && /^[\w.-]+$/.test(fields.id)) {
    const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    return uidFromPath(source, `${dir}/${fields.id}`);
  }
  return uidFromPath(source, path);
};

export const buildNode = (
  draft: Draft,
  source: string,
  site: Site,
  latest: ReadonlyMap<string, string>,
  collected: Collected,
): BuiltNode | undefined => {
  const before = collected.errors.length;
  const { file, fields, parsed } = draft;
  const uid = uidOf(draft, source, collected);
  const choice = chooseLabel(draft, collected);
  if (!choice) return undefined;
  const attributes = checkLabelAttributes(draft, choice, collected) ?? {};
  const monikers = monikersOf(draft, latest, collected);
  const edges = declaredEdges(draft, collected);
  const nav = site.navigation.get(file.replace(/\.[^./]+$/, ''));
  const titleField =
    typeof fields.title === 'string' && fields.title.trim() !== ''
      ? fields.title.trim()
      : undefined;
  const title = titleField ?? parsed.heading ?? nav?.title ?? humanize(file);
  const summaryField = [fields.description, fields.summary].find(
    (v): v is string => typeof v === 'string',
  );
  if (fields.summary !== undefined && typeof fields.summary !== 'string') {
    collected.errors.push({
      file,
      field: 'summary',
      reason: 'must be a string',
      fix: 'write the summary as one line of text',
    });
  }
  const product: unknown =
    fields.product ??
    (Array.isArray(fields.products) ? (fields.products as unknown[])[0] : undefined);
  if (product !== undefined && (typeof product !== 'string' || product.trim() === '')) {
    collected.errors.push({
      file,
      field: 'product',
      reason: 'must be a non-empty string',
      fix: 'write the product name, or remove product:',
    });
  }
  // Every other key is kept as an attribute (Mintlify sidebarTitle, Docusaurus sidebar_position…).
  const known = new Set([...choice.spec.required, ...choice.spec.optional].map((a) => a.name));
  for (const [key, value] of Object.entries(fields)) {
    if (
      NODE_FIELDS.has(key) ||
      DECLARED_EDGES.includes(key) ||
      known.has(key) ||
      key === 'xref' ||
      key === 'exampleOf'
    )
      continue;
    if (draft.isUnit && UNIT_EXTRA_FIELDS.has(key)) continue;
    if (value !== undefined && value !== null) attributes[key] = plain(value);
  }
  if (nav) {
    attributes.navOrder = nav.order;
    if (nav.groups.length > 0) attributes.navGroups = [...nav.groups];
  }
  if (collected.errors.length > before || uid === undefined || monikers === undefined)
    return undefined;
  const sections: NodeSection[] = parsed.sections.map(({ anchor, heading, level, offset }) => ({
    anchor,
    heading,
    level,
    offset,
  }));
  const content: NodeContent = {
    uid,
    label: choice.spec.label,
    title,
    summary: (summaryField ?? parsed.firstParagraph).trim(),
    body: parsed.body,
    product: typeof product === 'string' ? product.trim() : null,
    monikers,
    attributes,
    edges,
    sourcePath: file,
    source,
    ...(draft.location ? { path: draft.location.path, page: draft.location.page } : {}),
    ...(sections.length > 0 ? { sections } : {}),
  };
  return { draft, content };
};
