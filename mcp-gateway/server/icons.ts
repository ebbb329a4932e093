/**
 * Small SVG icons as data URIs, so clients that render icons need no network access. One per
 * resource type, one for the server.
 */
const COLORS: Readonly<Record<string, string>> = {
  doc: '#2563eb',
  article: '#0891b2',
  unit: '#7c3aed',
  module: '#9333ea',
  'learning-path': '#c026d3',
  adr: '#b45309',
  skill: '#15803d',
  'code-sample': '#334155',
  request: '#dc2626',
  network: '#0d9488',
};

const badge = (label: string, color: string): string => {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">` +
    `<rect width="24" height="24" rx="5" fill="${color}"/>` +
    `<text x="12" y="16.5" font-family="sans-serif" font-size="11" font-weight="700" ` +
    `text-anchor="middle" fill="#fff">${label}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
};

export interface IconEntry {
  readonly src: string;
  readonly mimeType: string;
  readonly sizes: string[];
}

const icon = (src: string): IconEntry => ({ src, mimeType: 'image/svg+xml', sizes: ['any'] });

export const typeIcon = (type: string): IconEntry =>
  icon(badge(type.slice(0, 2).toUpperCase(), COLORS[type] ?? '#475569'));

export const SERVER_ICON: IconEntry = icon(badge('C', '#111827'));

/** A tool's icon from the registry (a data URI or https URL), or none. */
export const toolIcons = (src: string | undefined): IconEntry[] | undefined => {
  if (src === undefined) return undefined;
  const mime = /^data:([^;,]+)/.exec(src)?.[1];
  return [{ src, mimeType: mime ?? 'image/svg+xml', sizes: ['any'] }];
};
