import GithubSlugger from 'github-slugger';
import markdownIt from 'markdown-it';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { excerptHtml } from '../excerpt.js';
import { html, layout, trusted, type Html } from '../html.js';
import type { ConsoleRequest } from '../http.js';
import type { ResourceBrowser, ToolReader } from '../reads.js';
import { parseResourceUri, RESOURCE_TYPES } from '../../server/resources.js';
import { pagination } from './requests.js';
import type { DocsFetchOutput } from '../../tools/docs-fetch.js';
import type { DocsSearchOutput } from '../../tools/docs-search.js';
import type { GetLearningPathOutput } from '../../tools/get-learning-path.js';
import type { GetRelatedOutput } from '../../tools/get-related.js';

/**
 * Knowledge: search (`docs_search`, the agents' own), a page rendered from its Markdown with
 * raw HTML disabled (markdown-it escapes it, and refuses `javascript:` links), its sections,
 * related nodes (`get_related`) and the learning path toward it (`get_learning_path`).
 */

type SearchHit = DocsSearchOutput['results'][number];
type NodeResult = DocsFetchOutput;
type RelatedResult = GetRelatedOutput;
type LearningPathResult = GetLearningPathOutput;

const TYPES = [
  '',
  'doc',
  'article',
  'unit',
  'module',
  'learningPath',
  'adr',
  'skill',
  'codeSample',
];

const docHref = (uid: string, moniker?: string): string =>
  `/console/docs/${encodeURIComponent(uid)}${moniker ? `?moniker=${encodeURIComponent(moniker)}` : ''}`;

const nonEmpty = (value: string | null): string | undefined =>
  value === null || value.trim() === '' ? undefined : value.trim();

/** A type filter: "any" first, the current one selected. */
const typeSelect = (
  id: string,
  name: string,
  values: readonly string[],
  selected: string | undefined,
): Html =>
  html`<select id="${id}" name="${name}">
    ${values.map(
      (value) =>
        html`<option value="${value}" ${value === (selected ?? '') ? html` selected` : ''}>
          ${value === '' ? 'any' : value}
        </option>`,
    )}
  </select>`;

/** Where an index entry opens in the console: its page, a request's page, or nowhere. */
const entryHref = (uri: string, type: string): string | undefined => {
  const parsed = parseResourceUri(uri);
  if (parsed?.kind !== 'item') return undefined;
  if (type === 'request') return `/console/requests/${encodeURIComponent(parsed.id)}`;
  return type === 'network' ? undefined : docHref(parsed.id);
};

/** Browsing without a query: the index `resources/list` pages, by type and product. */
const browseSection = async (
  request: ConsoleRequest,
  browse: ResourceBrowser,
  caller: NonNullable<ConsoleRequest['identity']>['caller'],
): Promise<Html> => {
  const type = nonEmpty(request.query.get('browse_type'));
  const product = nonEmpty(request.query.get('browse_product'));
  const after = nonEmpty(request.query.get('after'));
  const page = await browse(caller, { type, product }, after);
  const href = (cursor: string | undefined): string => {
    const query = new URLSearchParams();
    if (type !== undefined) query.set('browse_type', type);
    if (product !== undefined) query.set('browse_product', product);
    if (cursor !== undefined) query.set('after', cursor);
    const text = query.toString();
    return `/console/docs${text === '' ? '' : `?${text}`}#browse`;
  };
  return html`<section aria-labelledby="browse">
    <h2 id="browse">Browse</h2>
    <form class="filters" method="get" action="/console/docs" aria-label="Browse the index">
      <p>
        <label for="b-type">Type</label>
        ${typeSelect('b-type', 'browse_type', ['', ...RESOURCE_TYPES], type)}
      </p>
      <p>
        <label for="b-product">Product</label>
        <input id="b-product" name="browse_product" value="${product ?? ''}" />
      </p>
      <p><button type="submit">Browse</button></p>
    </form>
    ${
      page.entries.length === 0
        ? html`<p class="muted">Nothing here.</p>`
        : html`<ul class="hits">
            ${page.entries.map((entry) => {
              const link = entryHref(entry.uri, entry.type);
              return html`<li>
                ${link === undefined ? html`${entry.title}` : html`<a href="${link}">${entry.title}</a>`}
                <p class="meta">
                  ${entry.type} · ${entry.product ?? 'no product'} · <code>${entry.uri}</code>
                </p>
              </li>`;
            })}
          </ul>`
    }
    ${pagination('Index pages', [
      { href: after === undefined ? undefined : href(undefined), text: 'First page' },
      {
        href: page.nextCursor === undefined ? undefined : href(page.nextCursor),
        text: 'Next page',
        rel: 'next',
      },
    ])}
  </section>`;
};

export const renderDocs = async (
  request: ConsoleRequest,
  read: ToolReader,
  browse: ResourceBrowser,
): Promise<string> => {
  const identity = request.identity;
  if (!identity) throw new Error('the docs need a login');
  const caller = identity.caller;
  const query = nonEmpty(request.query.get('q'));
  const type = nonEmpty(request.query.get('type'));
  const product = nonEmpty(request.query.get('product'));
  const moniker = nonEmpty(request.query.get('moniker'));
  const hits =
    query === undefined
      ? undefined
      : (
          (await read(
            caller,
            'docs_search',
            {
              query,
              limit: 20,
              ...(type ? { types: [type] } : {}),
              ...(product ? { product } : {}),
              ...(moniker ? { moniker } : {}),
            },
            request.signal,
          )) as unknown as { results: SearchHit[] }
        ).results;
  const main = html`<h1>Knowledge</h1>
    <form
      class="filters"
      method="get"
      action="/console/docs"
      role="search"
      aria-label="Search the knowledge graph"
    >
      <p>
        <label for="q">Search</label>
        <input id="q" name="q" type="search" value="${query ?? ''}" required />
      </p>
      <p>
        <label for="d-type">Type</label>
        ${typeSelect('d-type', 'type', TYPES, type)}
      </p>
      <p>
        <label for="d-product">Product</label>
        <input id="d-product" name="product" value="${product ?? ''}" />
      </p>
      <p>
        <label for="d-moniker">Version</label>
        <input id="d-moniker" name="moniker" value="${moniker ?? ''}" placeholder="latest" />
      </p>
      <p><button type="submit">Search</button></p>
    </form>
    ${
      hits === undefined
        ? html`<p>
              Search the documentation, articles, units, modules, learning paths and ADRs: the same
              search agents call (<code>docs_search</code>), or browse the index by type and product
              (what <code>resources/list</code> answers).
            </p>
            ${await browseSection(request, browse, caller)}`
        : hits.length === 0
          ? html`<p role="status">Nothing matches.</p>`
          : html`<p role="status">${hits.length} result${hits.length === 1 ? '' : 's'}.</p>
              <ol class="hits">
                ${hits.map(
                  (hit) =>
                    html`<li>
                      <a
                        href="${docHref(hit.uid, moniker)}${hit.section?.anchor ? `#h-${hit.section.anchor}` : ''}"
                        >${hit.title}</a
                      >
                      <p class="meta">
                        ${hit.type} · ${hit.product ?? 'no product'} ·
                        ${hit.monikers.join(', ')}${hit.section ? html` · section “${hit.section.heading}”` : ''}
                      </p>
                      <div class="excerpt">
                        ${hit.section ? excerptHtml(hit.section.excerpt) : hit.summary}
                      </div>
                    </li>`,
                )}
              </ol>`
    }`;
  return layout({
    title: 'Knowledge',
    section: 'docs',
    who: identity.actor,
    csrf: request.csrf,
    main,
  });
};

/** The page's Markdown as HTML (no raw HTML), and its sections with anchors. */
export const renderMarkdown = (
  source: string,
  title?: string,
): { body: Html; sections: { id: string; title: string; level: number }[] } => {
  const md = markdownIt({ html: false, linkify: false });
  const slugger = new GithubSlugger();
  const sections: { id: string; title: string; level: number }[] = [];
  const parsed = md.parse(source, {});
  // The page's own title is the page's h1; a body that starts by repeating it drops that line.
  const first = parsed[0];
  const repeatsTitle =
    title !== undefined &&
    first?.type === 'heading_open' &&
    first.tag === 'h1' &&
    parsed[1]?.content.trim() === title.trim();
  const tokens = repeatsTitle ? parsed.slice(3) : parsed;
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const title = tokens[index + 1]?.content ?? '';
    const id = `h-${slugger.slug(title)}`;
    token.attrSet('id', id);
    sections.push({ id, title, level: Number(token.tag.slice(1)) });
  });
  return { body: trusted(md.renderer.render(tokens, md.options, {})), sections };
};

const softly = async <T>(load: () => Promise<T>): Promise<T | string> => {
  try {
    return await load();
  } catch (error) {
    if (error instanceof CogitaveError) return error.message;
    throw error;
  }
};

export const renderDocPage = async (
  request: ConsoleRequest,
  read: ToolReader,
  uid: string,
): Promise<string> => {
  const identity = request.identity;
  if (!identity) throw new Error('the docs need a login');
  const caller = identity.caller;
  const moniker = nonEmpty(request.query.get('moniker'));
  const node = (await read(
    caller,
    'docs_fetch',
    { uid, ...(moniker ? { moniker } : {}) },
    request.signal,
  )) as unknown as NodeResult;
  const related = await softly(
    async () =>
      (await read(
        caller,
        'get_related',
        { uid, depth: 1 },
        request.signal,
      )) as unknown as RelatedResult,
  );
  const path = await softly(
    async () =>
      (await read(
        caller,
        'get_learning_path',
        { target_uid: uid },
        request.signal,
      )) as unknown as LearningPathResult,
  );
  const { body, sections } = renderMarkdown(node.body, node.title);
  const main = html`<article class="doc" aria-labelledby="doc-title">
      <h1 id="doc-title">${node.title}</h1>
      <p class="meta">
        ${node.label} · <code>${node.uid}</code> · ${node.product ?? 'no product'} · versions
        ${node.monikers.join(', ')} · modified ${node.lastModified}
      </p>
      <p class="summary">${node.summary}</p>
      ${
        sections.length > 1
          ? html`<nav aria-label="Sections" class="toc">
              <h2>Sections</h2>
              <ul>
                ${sections.map(
                  (section) =>
                    html`<li class="level-${section.level}">
                      <a href="#${section.id}">${section.title}</a>
                    </li>`,
                )}
              </ul>
            </nav>`
          : ''
      }
      <div class="markdown">${body}</div>
    </article>
    <aside aria-labelledby="related-title" class="related">
      <h2 id="related-title">Related</h2>
      ${
        typeof related === 'string'
          ? html`<p class="muted">${related}</p>`
          : related.results.length === 0
            ? html`<p class="muted">No typed links.</p>`
            : html`<ul>
                ${related.results.map(
                  (item) =>
                    html`<li>
                      ${item.direction === 'out' ? item.edge_type : `${item.edge_type} (from)`}:
                      <a href="${docHref(item.uid)}">${item.title}</a>
                      <span class="muted">${item.label}</span>
                    </li>`,
                )}
              </ul>`
      }
      <h2>Learning path to here</h2>
      ${
        typeof path === 'string'
          ? html`<p class="muted">${path}</p>`
          : path.results.length <= 1
            ? html`<p class="muted">Nothing to learn first.</p>`
            : html`<ol>
                  ${path.results.map((step) => html`<li><a href="${docHref(step.uid)}">${step.title}</a> <span class="muted">${step.reason}</span></li>`)}
                </ol>
                <p>${path.total_duration_in_minutes} minutes in all.</p>`
      }
    </aside>`;
  return layout({
    title: node.title,
    section: 'docs',
    who: identity.actor,
    csrf: request.csrf,
    live: [node.uri],
    main,
  });
};

export type { Html };
