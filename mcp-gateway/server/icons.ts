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
  readonly mimeType?: string;
  readonly sizes: string[];
}

const icon = (src: string): IconEntry => ({ src, mimeType: 'image/svg+xml', sizes: ['any'] });

export const typeIcon = (type: string): IconEntry =>
  icon(badge(type.slice(0, 2).toUpperCase(), COLORS[type] ?? '#475569'));

export const SERVER_ICON: IconEntry = icon(badge('C', '#111827'));

const DATA_URI = /^data:([^;,]+)((?:;(?!base64,)[^;,]*)*)(;base64)?,(.*)$/s;

/**
 * An icon source as MCP clients must accept it (the specification's `Icon.src`): an https URL,
 * or a `data:` URI with base64 content. A registry icon written as `data:image/svg+xml;utf8,<svg…>`
 * is re-encoded as base64 here, once per process; anything else is a wiring error.
 */
export const iconSource = (src: string): { src: string; mimeType: string | undefined } => {
  if (/^https:\/\//i.test(src)) return { src, mimeType: undefined };
  const match = DATA_URI.exec(src);
  if (!match) throw new Error(`icon ${src.slice(0, 40)}… is neither an https URL nor a data: URI`);
  const [, mimeType = '', , base64, payload = ''] = match;
  if (base64 !== undefined) return { src, mimeType };
  // Text data URIs are percent-encoded where needed; decode, then re-encode as base64.
  let text: string;
  try {
    text = decodeURIComponent(payload);
  } catch {
    text = payload;
  }
  return {
    src: `data:${mimeType};base64,${Buffer.from(text, 'utf8').toString('base64')}`,
    mimeType,
  };
};

/** A tool's icon from the registry (a data URI or https URL), or none. */
export const toolIcons = (src: string | undefined): IconEntry[] | undefined => {
  if (src === undefined) return undefined;
  const icon = iconSource(src);
  return [{ src: icon.src, ...(icon.mimeType ? { mimeType: icon.mimeType } : {}), sizes: ['any'] }];
};
