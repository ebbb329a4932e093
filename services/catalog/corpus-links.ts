import type { NodeContent, NodeEdge } from './content.js';
import { extractSamples } from './code-samples.js';
import { inlineCode } from './docfx-code-inline.js';
import { withArticle, type Collected } from './issues.js';
import { createLinkResolver, type LinkResolver } from './links.js';
import { inlinePartials } from './mdx-partials.js';
import type { BuiltNode } from './page-node.js';
import type { Site } from './site.js';
import { docusaurusLinkCandidates } from './site-docusaurus.js';
import { edgeSpec } from './vocabulary.js';

// The corpus's nodes by uid, and the edges between them: declared, linked in text, checked.

/** Nodes by uid and the file each came from; a second node with a uid is reported, not kept. */
export class NodeTable {
  readonly nodes = new Map<string, NodeContent>();
  readonly owner = new Map<string, string>();

  constructor(private readonly collected: Collected) {}

  add(content: NodeContent, file: string): void {
    const first = this.owner.get(content.uid);
    if (first !== undefined) {
      this.collected.errors.push({
        file,
        field: 'uid',
        reason: `"${content.uid}" is already used by ${first}`,
        fix: 'give one of the two another uid (or, for pages without one, an id: or slug:)',
      });
      return;
    }
    this.owner.set(content.uid, file);
    this.nodes.set(content.uid, content);
  }
}

/** Text links, `<xref:…>` and `@mentions` that name a node become `xref` edges. */
const linkEdges = (node: BuiltNode, resolver: LinkResolver, collected: Collected): NodeEdge[] => {
  const { draft, content } = node;
  const declared = new Set(content.edges.map((edge) => edge.target));
  const targets = new Map<string, string | undefined>();
  for (const link of draft.parsed.links) {
    if (link.mention) {
      const name = link.href.slice(1);
      if (resolver.hasUid(name) && name !== content.uid && !targets.has(name))
        targets.set(name, undefined);
      continue;
    }
    const resolved = resolver.resolve(link.href, { file: draft.file, path: content.path });
    const line = link.line + draft.bodyOffset;
    if (resolved.kind === 'node') {
      if (resolved.uid !== content.uid && !targets.has(resolved.uid))
        targets.set(resolved.uid, resolved.anchor);
      if (resolved.anchor !== undefined && !resolver.hasAnchor(resolved.uid, resolved.anchor)) {
        collected.warnings.push({
          file: draft.file,
          field: `link (line ${line})`,
          reason: `${link.href}: ${resolved.uid} has no section #${resolved.anchor}`,
          fix: 'link to one of its headings’ anchors, or drop the #part',
          line,
        });
      }
    } else if (resolved.kind === 'missing') {
      const key = `${draft.file}\n${resolved.target}`;
      if (!collected.danglingKeys.has(key)) {
        collected.danglingKeys.add(key);
        collected.dangling.push({
          file: draft.file,
          uid: content.uid,
          target: resolved.target,
          edgeType: 'xref',
        });
      }
      collected.warnings.push({
        file: draft.file,
        field: `link (line ${line})`,
        reason: `${link.href}: no page ${resolved.target} in this folder; the link is not an edge`,
        fix: resolved.fix,
        line,
      });
    }
  }
  return [...targets]
    .filter(([target]) => !declared.has(target))
    .map(([target, anchor], index) => ({
      type: 'xref',
      target,
      ordinal: index,
      origin: 'text',
      ...(anchor === undefined ? {} : { anchor }),
    }));
};

/** Checks every edge end against the vocabulary and reports dangling targets (then drops them). */
const resolveEdges = (
  nodes: Map<string, NodeContent>,
  files: ReadonlyMap<string, string>,
  resolver: LinkResolver,
  collected: Collected,
): void => {
  for (const [uid, content] of nodes) {
    const file = files.get(uid) ?? content.sourcePath ?? uid;
    const edges: NodeEdge[] = [];
    for (const edge of content.edges) {
      // A declared target may be written as a path of the site.
      const targetUid = nodes.has(edge.target)
        ? edge.target
        : edge.origin === 'frontMatter'
          ? resolver.uidOfPath(edge.target)
          : undefined;
      const target = targetUid === undefined ? undefined : nodes.get(targetUid);
      if (!target || targetUid === undefined) {
        if (edge.origin === 'frontMatter')
          collected.dangling.push({ file, uid, target: edge.target, edgeType: edge.type });
        continue;
      }
      const spec = edgeSpec(edge.type);
      if (spec && spec.to.length > 0 && !spec.to.includes(target.label)) {
        collected.errors.push({
          file,
          field: edge.type,
          reason: `target ${targetUid} is ${withArticle(target.label)}; ${edge.type} must point at ${spec.to.join(' or ')}`,
          fix: `point ${edge.type} at ${withArticle(spec.to[0] ?? 'node')}, or use relatedTo`,
        });
      } else if (spec && spec.from.length > 0 && !spec.from.includes(content.label)) {
        collected.errors.push({
          file,
          field: edge.type,
          reason: `${withArticle(content.label)} cannot have ${edge.type} edges (allowed from ${spec.from.join(', ')})`,
          fix: 'use relatedTo, or change the label',
        });
      } else if (targetUid === uid) {
        collected.errors.push({
          file,
          field: edge.type,
          reason: 'a node cannot point at itself',
          fix: `remove ${uid} from ${edge.type}`,
        });
      } else {
        edges.push({ ...edge, target: targetUid });
      }
    }
    nodes.set(uid, { ...content, edges });
  }
};

/** What linking the corpus needs besides its nodes. */
export interface LinkInputs {
  readonly root: string;
  readonly files: readonly string[];
  readonly baseUrl: string | undefined;
  readonly site: Site;
  readonly latest: ReadonlyMap<string, string>;
  readonly built: readonly BuiltNode[];
}

/**
 * Adds each page's text links as edges and its code samples as nodes, then checks every edge.
 * Returns the files samples were taken from (they are not reported as skipped).
 */
export const linkNodes = async (
  table: NodeTable,
  inputs: LinkInputs,
  collected: Collected,
): Promise<Set<string>> => {
  const { root, files, site, latest, built } = inputs;
  const { nodes, owner } = table;
  const layout = site.docusaurus;
  const resolver = createLinkResolver({
    files,
    baseUrl: inputs.baseUrl,
    contentRoot: site.contentRoot,
    docfxRoot: site.docfxRoot,
    redirects: site.redirects,
    latest,
    ...(layout
      ? {
          alternatives: (path: string, fromFile: string) =>
            docusaurusLinkCandidates(layout, path, fromFile),
        }
      : {}),
    pages: built.map(({ draft, content }) => ({
      uid: content.uid,
      file: draft.file,
      path: content.path,
      ...(draft.location?.aliases ? { aliases: draft.location.aliases } : {}),
      anchors: [...(content.sections ?? []).map((s) => s.anchor), ...draft.parsed.anchors],
    })),
    uids: new Set(nodes.keys()),
  });
  const used = new Set<string>();
  for (const node of built) {
    const current = nodes.get(node.content.uid);
    if (current !== node.content) continue; // a duplicate uid, reported above
    const xrefs = linkEdges(node, resolver, collected);
    const { samples, inlined } = await extractSamples(root, node, used, collected, site.docfxRoot);
    if (node.draft.parsed.partials.length > 0) {
      const partials = await inlinePartials(
        root,
        node.draft.file,
        node.draft.parsed.partials,
        site.docusaurus?.siteDir ?? '',
      );
      inlined.push(...partials.inlined);
      for (const problem of partials.problems) {
        const line = problem.line + node.draft.bodyOffset;
        collected.warnings.push({
          file: node.draft.file,
          field: `import (line ${String(line)})`,
          reason: problem.reason,
          fix: problem.fix,
          line,
        });
      }
    }
    nodes.set(node.content.uid, {
      ...node.content,
      ...inlineCode(node.content, inlined),
      edges: [...node.content.edges, ...xrefs],
    });
    for (const sample of samples) table.add(sample, node.draft.file);
  }
  resolveEdges(nodes, owner, resolver, collected);
  return used;
};
