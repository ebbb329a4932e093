/**
 * Server-rendered HTML with escaping by construction: `html` templates escape every
 * interpolated value unless it is itself `Html` (a template, or Markdown rendered with raw HTML
 * disabled). Pages are plain documents (readable without JavaScript); the one script adds live
 * updates.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const render = (value: Part): string => {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return (value as readonly Part[]).map(render).join('');
  return escapeHtml(String(value));
};

export const html = (strings: TemplateStringsArray, ...values: Part[]): Html =>
  new Html(
    strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i]) : ''), ''),
  );

/** Trusted markup (rendered Markdown, nothing from a request). */
export const trusted = (text: string): Html => new Html(text);

export interface LayoutOptions {
  readonly title: string;
  /** The navigation entry of the page (`requests`, `docs`, `audit`), marked current. */
  readonly section?: 'requests' | 'docs' | 'audit';
  /** Who is logged in, shown with the logout button; absent on the login page. */
  readonly who?: string | undefined;
  readonly csrf?: string | undefined;
  /** What live updates concern this page: resource URIs or prefixes (`cogitave://request/`). */
  readonly live?: readonly string[];
  readonly main: Html;
}

const NAV = [
  ['requests', 'Requests', '/console/'],
  ['docs', 'Knowledge', '/console/docs'],
  ['audit', 'Audit', '/console/audit'],
] as const;

export const layout = (options: LayoutOptions): string =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Cogitave console</title>
<link rel="icon" href="/console/assets/favicon.svg">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body${options.live ? html` data-live="${options.live.join(' ')}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand"><a href="/console/">Cogitave console</a></p>
${
  options.who === undefined
    ? ''
    : html`<nav aria-label="Sections">
          <ul>
            ${NAV.map(
              ([key, label, href]) =>
                html`<li>
                  <a href="${href}" ${options.section === key ? html` aria-current="page"` : ''}
                    >${label}</a
                  >
                </li>`,
            )}
          </ul>
        </nav>
        <form class="logout" method="post" action="/console/logout">
          <input type="hidden" name="csrf" value="${options.csrf}" /><span
            >Signed in as <strong>${options.who}</strong></span
          >
          <button type="submit">Sign out</button>
        </form>`
}
</header>
<main id="main" tabindex="-1">
${options.main}
</main>
<p id="live-status" class="live-status" role="status" aria-live="polite"></p>
</body>
</html>`.text;

/** A `<time>` element: machine-readable instant, readable UTC text. */
export const time = (iso: string): Html =>
  html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}</time>`;
