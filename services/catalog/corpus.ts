import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { NodeContent, NodeEdge } from './content.js';
import { normalizeContent } from './content.js';
import { extractLinks, scanBody, splitFrontMatter, type CodeBlock } from './markdown.js';
import { checkSamples, CHECKED_LANGUAGES, type SampleCheck } from './samples.js';
import {
  DEFAULT_MONIKER,
  edgeSpec,
  MONIKER_PATTERN,
  NODE_LABELS,
  UID_PATTERN,
  type AttributeSpec,
  type LabelSpec,
} from './vocabulary.js';

/**
 * Reads a corpus folder into node contents, validating everything against the closed
 * vocabulary before anything is written: Markdown files with YAML front matter and JSON files
 * in the shape of a learning-module unit. Every problem is collected (file, field, reason), so
 * one run reports them all.
 */
export interface CorpusIssue {
  /** Relative to the corpus root. */
  readonly file: string;
  readonly field: string;
  readonly reason: string;
}

export interface DanglingLink {
  readonly file: string;
  readonly uid: string;
  readonly target: string;
  readonly edgeType: string;
}

export interface LoadedCorpus {
  readonly root: string;
  readonly files: number;
  /** Sorted by uid. */
  readonly nodes: readonly NodeContent[];
  readonly errors: readonly CorpusIssue[];
  readonly dangling: readonly DanglingLink[];
}

export interface LoadCorpusOptions {
  /** Skip the compile check (samples then carry no `compiled`). */
  readonly checkSamples?: boolean;
  /** A known check result for a sample with this uid and code (e.g. the stored one). */
  readonly knownCheck?: (uid: string, language: string, code: string) => SampleCheck | undefined;
}

/** Front-matter keys that are edges; `xref` and `exampleOf` are derived, never declared. */
const DECLARED_EDGES = [
  'partOf',
  'dependsOn',
  'prerequisiteOf',
  'supersedes',
  'relatedTo',
  'teaches',
];
const NODE_FIELDS = new Set(['uid', 'label', 'kind', 'title', 'summary', 'product', 'monikers']);
/** Learning-module unit fields that carry no catalog meaning (kept for compatibility). */
const UNIT_EXTRA_FIELDS = new Set([
  'type',
  'products',
  'roles',
  'levels',
  'subjects',
  'quiz',
  'source',
]);

const normalizeKind = (kind: string): string => kind.toLowerCase().replace(/[-_\s]/g, '');
const KIND_ALIASES: Readonly<Record<string, string>> = {
  moduleunit: 'Unit',
  learningmodule: 'Module',
  path: 'LearningPath',
  decision: 'ADR',
  sample: 'CodeSample',
};

/** Catalog labels by any of their names (label, resource type, aliases), case-insensitive. */
export const labelForKind = (kind: string): LabelSpec | undefined => {
  const key = normalizeKind(kind);
  const alias = KIND_ALIASES[key];
  return NODE_LABELS.find(
    (spec) =>
      spec.source === 'catalog' &&
      (normalizeKind(spec.label) === key ||
        normalizeKind(spec.resourceType) === key ||
        spec.label === alias),
  );
};

interface Draft {
  readonly file: string;
  readonly fields: Record<string, unknown>;
  readonly body: string;
  /** Lines before the body in the file (front matter), so reports name file lines. */
  readonly bodyOffset: number;
}

interface BuiltNode {
  readonly file: string;
  readonly bodyOffset: number;
  readonly content: NodeContent;
  readonly blocks: readonly CodeBlock[];
  readonly links: readonly string[];
}

const listFiles = async (root: string, dir: string = root): Promise<string[]> => {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(root, path)));
    else if (/\.(md|json)$/.test(entry.name)) files.push(path);
  }
  return files;
};

/** `a Doc`, `an ADR`, `an Article`. */
const withArticle = (label: string): string => `${/^[AEIO]/.test(label) ? 'an' : 'a'} ${label}`;

const toPosix = (path: string): string => path.split(sep).join('/');

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
const plain = (value: unknown): unknown =>
  value instanceof Date ? value.toISOString().slice(0, 10) : value;

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

const buildNode = (draft: Draft, issues: CorpusIssue[]): BuiltNode | undefined => {
  const { file, fields } = draft;
  const problem = (field: string, reason: string): void => {
    issues.push({ file, field, reason });
  };
  const before = issues.length;
  const uid = fields.uid;
  if (typeof uid !== 'string' || !UID_PATTERN.test(uid)) {
    problem('uid', `must match ${UID_PATTERN.source} (got ${JSON.stringify(uid)})`);
  }
  const kind = fields.label ?? fields.kind;
  const spec = typeof kind === 'string' ? labelForKind(kind) : undefined;
  if (!spec) {
    problem(
      fields.label !== undefined ? 'label' : 'kind',
      `must be one of ${NODE_LABELS.filter((s) => s.source === 'catalog')
        .map((s) => s.label)
        .join(', ')} (got ${JSON.stringify(kind)})`,
    );
    return undefined;
  }
  if (spec.label === 'CodeSample') {
    problem('label', 'CodeSample nodes are extracted from code blocks, not written as files');
  }
  const title = fields.title;
  if (typeof title !== 'string' || title.trim() === '')
    problem('title', 'must be a non-empty string');
  const summary = fields.summary ?? '';
  if (typeof summary !== 'string') problem('summary', 'must be a string');
  const product: unknown =
    fields.product ??
    (Array.isArray(fields.products) ? (fields.products as unknown[])[0] : undefined);
  if (product !== undefined && (typeof product !== 'string' || product.trim() === '')) {
    problem('product', 'must be a non-empty string');
  }
  const monikersRaw = fields.monikers ?? [DEFAULT_MONIKER];
  const monikers = Array.isArray(monikersRaw) ? monikersRaw.map(plain) : [plain(monikersRaw)];
  const badMoniker = monikers.find((m) => typeof m !== 'string' || !MONIKER_PATTERN.test(m));
  if (badMoniker !== undefined || monikers.length === 0) {
    problem(
      'monikers',
      `each must match ${MONIKER_PATTERN.source} (got ${JSON.stringify(badMoniker ?? monikersRaw)})`,
    );
  }

  const attributes: Record<string, unknown> = {};
  const known = [...spec.required, ...spec.optional];
  for (const attribute of known) {
    const value = plain(fields[attribute.name]);
    if (value === undefined || value === null) {
      if (spec.required.includes(attribute))
        problem(
          attribute.name,
          `is required for ${withArticle(spec.label)} (${attribute.description})`,
        );
      continue;
    }
    const reason = checkAttribute(attribute, value);
    if (reason) problem(attribute.name, reason);
    else attributes[attribute.name] = value;
  }
  if (
    spec.label === 'ADR' &&
    typeof attributes.status === 'string' &&
    !['proposed', 'accepted', 'deprecated', 'superseded'].includes(attributes.status)
  ) {
    problem(
      'status',
      `must be proposed, accepted, deprecated or superseded (got "${attributes.status}")`,
    );
  }
  if (
    spec.label === 'ADR' &&
    typeof attributes.date === 'string' &&
    !/^\d{4}-\d{2}-\d{2}$/.test(attributes.date)
  ) {
    problem('date', `must be YYYY-MM-DD (got "${attributes.date}")`);
  }

  const edges: NodeEdge[] = [];
  for (const type of DECLARED_EDGES) {
    if (fields[type] === undefined || fields[type] === null) continue;
    const targets = edgeTargets(fields[type]);
    if (typeof targets === 'string') {
      problem(type, targets);
      continue;
    }
    targets.forEach(({ target, ordinal }, index) => {
      if (!UID_PATTERN.test(target)) problem(type, `"${target}" is not a valid uid`);
      else if (edges.some((edge) => edge.type === type && edge.target === target)) {
        problem(type, `"${target}" is listed twice`);
      } else edges.push({ type, target, ordinal: ordinal ?? index, origin: 'frontMatter' });
    });
  }
  for (const key of Object.keys(fields)) {
    if (NODE_FIELDS.has(key) || DECLARED_EDGES.includes(key) || known.some((a) => a.name === key))
      continue;
    if (file.endsWith('.json') && UNIT_EXTRA_FIELDS.has(key)) continue;
    const owner = NODE_LABELS.find((s) =>
      [...s.required, ...s.optional].some((a) => a.name === key),
    );
    problem(
      key,
      owner
        ? `is an attribute of ${owner.label}, not of ${spec.label}; ${spec.label} allows ${known.map((a) => a.name).join(', ') || 'no attributes'}`
        : edgeSpec(key)
          ? `"${key}" edges are derived from the text, not declared`
          : `unknown field; allowed: ${[...NODE_FIELDS, ...DECLARED_EDGES, ...known.map((a) => a.name)].join(', ')}`,
    );
  }
  if (issues.length > before || typeof uid !== 'string') return undefined;

  const { blocks, prose } = scanBody(draft.body);
  return {
    file,
    bodyOffset: draft.bodyOffset,
    blocks,
    links: extractLinks(prose).map((link) => link.uid),
    content: {
      uid,
      label: spec.label,
      title: (title as string).trim(),
      summary: (summary as string).trim(),
      body: draft.body,
      product: typeof product === 'string' ? product.trim() : null,
      monikers: monikers as string[],
      attributes,
      edges,
      sourcePath: file,
    },
  };
};

const readDraft = async (
  root: string,
  path: string,
  issues: CorpusIssue[],
): Promise<Draft | undefined> => {
  const file = toPosix(relative(root, path));
  const text = await readFile(path, 'utf8');
  if (path.endsWith('.json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      issues.push({ file, field: '(file)', reason: `not valid JSON: ${(error as Error).message}` });
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      issues.push({
        file,
        field: '(file)',
        reason: 'must hold a JSON object (a learning-module unit)',
      });
      return undefined;
    }
    const fields = parsed as Record<string, unknown>;
    const source = fields.source ?? '';
    if (typeof source !== 'string') {
      issues.push({ file, field: 'source', reason: 'must be Markdown text' });
      return undefined;
    }
    return { file, fields, body: source, bodyOffset: 0 };
  }
  try {
    const front = splitFrontMatter(text);
    if (!front) {
      issues.push({
        file,
        field: '(front matter)',
        reason: 'missing: start the file with --- YAML front matter --- (uid, label, title, ...)',
      });
      return undefined;
    }
    return {
      file,
      fields: front.data,
      body: front.body,
      bodyOffset: text.slice(0, text.length - front.body.length).split('\n').length - 1,
    };
  } catch (error) {
    issues.push({
      file,
      field: '(front matter)',
      reason: `not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`,
    });
    return undefined;
  }
};

const parseRange = (range: string | undefined, code: string): string | undefined => {
  if (range === undefined) return code;
  const match = /^(\d+)(?:-(\d+))?$/.exec(range);
  if (!match) return undefined;
  const lines = code.split('\n');
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  return start >= 1 && end >= start && end <= lines.length
    ? lines.slice(start - 1, end).join('\n')
    : undefined;
};

const extractSamples = async (
  root: string,
  node: BuiltNode,
  issues: CorpusIssue[],
): Promise<NodeContent[]> => {
  const samples: NodeContent[] = [];
  for (const block of node.blocks) {
    let code = block.code;
    let sourcePath = node.file;
    const field = `code block ${block.ordinal} (line ${block.line + node.bodyOffset})`;
    if (block.kind === 'directive') {
      const source = block.attributes.source;
      if (!source) {
        issues.push({ file: node.file, field, reason: ':::code needs source="path"' });
        continue;
      }
      if (!block.language) {
        issues.push({ file: node.file, field, reason: ':::code needs language="..."' });
        continue;
      }
      const path = source.startsWith('~/')
        ? resolve(root, source.slice(2))
        : resolve(dirname(join(root, node.file)), source);
      if (relative(root, path).startsWith('..')) {
        issues.push({
          file: node.file,
          field,
          reason: `source "${source}" is outside the corpus folder`,
        });
        continue;
      }
      try {
        code = await readFile(path, 'utf8');
      } catch {
        issues.push({
          file: node.file,
          field,
          reason: `source "${source}" not found (looked at ${toPosix(relative(root, path))})`,
        });
        continue;
      }
      const ranged = parseRange(block.attributes.range, code);
      if (ranged === undefined) {
        issues.push({
          file: node.file,
          field,
          reason: `range "${block.attributes.range ?? ''}" is not N or N-M within the file`,
        });
        continue;
      }
      code = ranged;
      sourcePath = toPosix(relative(root, path));
    }
    const { content } = node;
    samples.push({
      uid: `${content.uid}.sample-${block.ordinal}`,
      label: 'CodeSample',
      title:
        block.attributes.title ?? `${content.title}: sample ${block.ordinal} (${block.language})`,
      summary: `${block.language} sample ${block.ordinal} from "${content.title}".`,
      body: code.replace(/\s+$/, '') + '\n',
      product: content.product,
      monikers: content.monikers,
      attributes: { language: block.language, sourceUid: content.uid },
      edges: [{ type: 'exampleOf', target: content.uid, ordinal: 0, origin: 'text' }],
      sourcePath,
    });
  }
  return samples;
};

/** Checks every edge end against the vocabulary and reports dangling targets (then drops them). */
const resolveEdges = (
  nodes: Map<string, NodeContent>,
  files: ReadonlyMap<string, string>,
  issues: CorpusIssue[],
  dangling: DanglingLink[],
): void => {
  for (const [uid, content] of nodes) {
    const file = files.get(uid) ?? content.sourcePath ?? uid;
    const edges: NodeEdge[] = [];
    for (const edge of content.edges) {
      const target = nodes.get(edge.target);
      if (!target) {
        dangling.push({ file, uid, target: edge.target, edgeType: edge.type });
        continue;
      }
      const spec = edgeSpec(edge.type);
      if (spec && spec.to.length > 0 && !spec.to.includes(target.label)) {
        issues.push({
          file,
          field: edge.type,
          reason: `target ${edge.target} is ${withArticle(target.label)}; ${edge.type} must point at ${spec.to.join(' or ')}`,
        });
      } else if (spec && spec.from.length > 0 && !spec.from.includes(content.label)) {
        issues.push({
          file,
          field: edge.type,
          reason: `${withArticle(content.label)} cannot have ${edge.type} edges (allowed from ${spec.from.join(', ')})`,
        });
      } else if (edge.target === uid) {
        issues.push({ file, field: edge.type, reason: 'a node cannot point at itself' });
      } else {
        edges.push(edge);
      }
    }
    nodes.set(uid, { ...content, edges });
  }
};

export const loadCorpus = async (
  dir: string,
  options: LoadCorpusOptions = {},
): Promise<LoadedCorpus> => {
  const root = resolve(dir);
  const issues: CorpusIssue[] = [];
  const dangling: DanglingLink[] = [];
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) {
    return {
      root,
      files: 0,
      nodes: [],
      errors: [{ file: dir, field: '(folder)', reason: 'not a folder' }],
      dangling,
    };
  }
  const paths = await listFiles(root);
  const built: BuiltNode[] = [];
  for (const path of paths) {
    const draft = await readDraft(root, path, issues);
    const node = draft && buildNode(draft, issues);
    if (node) built.push(node);
  }
  const nodes = new Map<string, NodeContent>();
  const owner = new Map<string, string>();
  const add = (content: NodeContent, file: string): void => {
    const first = owner.get(content.uid);
    if (first !== undefined) {
      issues.push({ file, field: 'uid', reason: `"${content.uid}" is already used by ${first}` });
      return;
    }
    owner.set(content.uid, file);
    nodes.set(content.uid, content);
  };
  for (const node of built) {
    // Text links become xref edges unless the front matter already declares the pair.
    const declared = new Set(node.content.edges.map((edge) => edge.target));
    const xrefs = node.links
      .filter((target) => target !== node.content.uid && !declared.has(target))
      .map((target, index): NodeEdge => ({ type: 'xref', target, ordinal: index, origin: 'text' }));
    add({ ...node.content, edges: [...node.content.edges, ...xrefs] }, node.file);
    for (const sample of await extractSamples(root, node, issues)) add(sample, node.file);
  }
  resolveEdges(nodes, owner, issues, dangling);

  if (issues.length === 0 && options.checkSamples !== false) {
    const samples = [...nodes.values()].filter(
      (node) =>
        node.label === 'CodeSample' && CHECKED_LANGUAGES.has(String(node.attributes.language)),
    );
    const known = new Map<string, SampleCheck>();
    const toCheck = samples.filter((sample) => {
      const check = options.knownCheck?.(
        sample.uid,
        String(sample.attributes.language),
        sample.body,
      );
      if (check) known.set(sample.uid, check);
      return !check;
    });
    const checked = await checkSamples(
      toCheck.map((s) => ({ uid: s.uid, language: String(s.attributes.language), code: s.body })),
    );
    for (const sample of samples) {
      const check = known.get(sample.uid) ?? checked?.get(sample.uid);
      if (!check) continue;
      nodes.set(sample.uid, {
        ...sample,
        attributes: {
          ...sample.attributes,
          compiled: check.compiled,
          ...(check.compiled ? {} : { diagnostics: [...check.diagnostics] }),
        },
      });
    }
  }
  const sorted = [...nodes.values()]
    .map(normalizeContent)
    .sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  return { root, files: paths.length, nodes: sorted, errors: issues, dangling };
};
