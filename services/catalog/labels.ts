import { NODE_LABELS, type LabelSpec } from './vocabulary.js';

/**
 * Labels of the closed vocabulary from what a documentation page says about itself: an explicit
 * `label:`/`kind:` (any name of a label: `Doc`, `unit`, `moduleUnit`, `learning-path`), else a
 * page-type key (`ms.topic`, `type`, `pageType`), else the folder it sits in (`adr/`, `blog/`,
 * `tutorials/`...), else Doc. Inference only ever lands on a label of the vocabulary.
 */
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

/** Page-type values (Microsoft Learn's `ms.topic`, Hugo/Docsy `type`, ...) → label. */
const PAGE_TYPES: Readonly<Record<string, string>> = {
  tutorial: 'Article',
  howto: 'Article',
  howtoguide: 'Article',
  quickstart: 'Article',
  article: 'Article',
  blog: 'Article',
  blogpost: 'Article',
  post: 'Article',
  guide: 'Article',
  sample: 'Article',
  conceptual: 'Doc',
  concept: 'Doc',
  overview: 'Doc',
  reference: 'Doc',
  landingpage: 'Doc',
  docs: 'Doc',
  adr: 'ADR',
  decision: 'ADR',
  decisionrecord: 'ADR',
};

const FOLDER_LABELS: Readonly<Record<string, string>> = {
  adr: 'ADR',
  adrs: 'ADR',
  decisions: 'ADR',
  decisionrecords: 'ADR',
  architecturedecisions: 'ADR',
  architecturedecisionrecords: 'ADR',
  blog: 'Article',
  posts: 'Article',
  articles: 'Article',
  tutorial: 'Article',
  tutorials: 'Article',
  howto: 'Article',
  howtos: 'Article',
  guides: 'Article',
  cookbook: 'Article',
  recipes: 'Article',
};

export type LabelReason = 'front matter' | 'page type' | 'folder' | 'default';

export interface InferredLabel {
  readonly label: string;
  readonly reason: LabelReason;
  /** The key or folder that decided it. */
  readonly from: string;
}

const PAGE_TYPE_KEYS = ['ms.topic', 'pageType', 'page_type', 'type', 'category'];

/** The label a page without an explicit `label:`/`kind:` gets. */
export const inferLabel = (
  file: string,
  fields: Readonly<Record<string, unknown>>,
): InferredLabel => {
  for (const key of PAGE_TYPE_KEYS) {
    const value = fields[key];
    if (typeof value !== 'string') continue;
    const label = PAGE_TYPES[normalizeKind(value)];
    if (label) return { label, reason: 'page type', from: `${key}: ${value}` };
  }
  const folders = file.split('/').slice(0, -1).reverse();
  for (const folder of folders) {
    const label = FOLDER_LABELS[normalizeKind(folder)];
    if (label) return { label, reason: 'folder', from: `${folder}/` };
  }
  return { label: 'Doc', reason: 'default', from: '' };
};

/**
 * An ADR's status and date from its text when front matter lacks them: the `Status:` / `Date:`
 * lines or `## Status` section that ADR templates (Nygard, MADR, adr-tools) write.
 */
export const adrFieldsFromBody = (body: string): { status?: string; date?: string } => {
  const status =
    /^\s*(?:[-*]\s*)?\**status\**\s*:\s*\**\s*([A-Za-z]+)/im.exec(body)?.[1] ??
    /^#{1,6}\s*status\s*\n+\s*([A-Za-z]+)/im.exec(body)?.[1];
  const date = /^\s*(?:[-*]\s*)?\**date\**\s*:\s*\**\s*(\d{4}-\d{2}-\d{2})/im.exec(body)?.[1];
  return {
    ...(status === undefined ? {} : { status: status.toLowerCase() }),
    ...(date === undefined ? {} : { date }),
  };
};
