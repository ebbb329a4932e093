import { posix } from 'node:path';

/**
 * Where a link in a page goes: another page of the same folder (by its file, relative to the
 * linking page, or by its site path, `/config/server-options`, with or without `.md`, `.mdx`,
 * `.html`, a trailing `/` or `index`), a section of it (`#anchor`), a uid (`xref:uid`), or
 * outside (another site, an asset). A URL of the site itself (its base URL) is a site path.
 */
export type LinkTarget =
  | { readonly kind: 'node'; readonly uid: string; readonly anchor: string | undefined }
  | { readonly kind: 'self' }
  | { readonly kind: 'external' }
  | { readonly kind: 'asset' }
  | { readonly kind: 'missing'; readonly target: string; readonly fix: string };

export interface LinkResolver {
  resolve(
    href: string,
    from: { readonly file: string; readonly path: string | undefined },
  ): LinkTarget;
  hasUid(uid: string): boolean;
  hasAnchor(uid: string, anchor: string): boolean;
  /** A node's uid from its uid, site path or file path; undefined when none matches. */
  uidOfPath(reference: string): string | undefined;
}

/**
 * Applies a redirect (`/a/:slug*` → `/b/:slug*`, `:name` one segment) to a site path, or
 * returns undefined when it does not match.
 */
export const applyRedirect = (
  path: string,
  source: string,
  destination: string,
): string | undefined => {
  const names: string[] = [];
  const pattern = source
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => {
      const param = /^:(\w+)(\*)?$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1] ?? '');
      return param[2] ? '(.*)' : '([^/]+)';
    })
    .join('/');
  const match = new RegExp(`^${pattern}/?$`).exec(path);
  if (!match) return undefined;
  return names.reduce(
    (out, name, index) => out.replace(new RegExp(`:${name}\\*?`), match[index + 1] ?? ''),
    destination,
  );
};

/** `#_meta` and `#meta`, `#Capabilities` and `#capabilities`: anchors as slugifiers differ. */
const anchorKey = (anchor: string): string => anchor.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

export interface LinkablePage {
  readonly uid: string;
  readonly file: string;
  readonly path: string | undefined;
  readonly anchors: readonly string[];
  /** Other site paths the page answers to (a Docusaurus doc id's route under a slug). */
  readonly aliases?: readonly string[];
}

const PAGE_EXTENSION = /\.(mdx?|markdown|html?)$/i;
const NOT_A_PAGE =
  /\.(png|jpe?g|gif|svg|webp|avif|ico|pdf|zip|gz|json|ya?ml|txt|csv|xml|js|mjs|ts|css|mp4|mp3|webm|woff2?)$/i;

/** The forms one page answers to: `a/b`, `a/b/index` → `a/b`, without extension or slash. */
export const normalizePagePath = (path: string): string =>
  path
    .replace(/\/+$/, '')
    .replace(PAGE_EXTENSION, '')
    .replace(/(^|\/)(index|README|readme)$/, '')
    .replace(/^\.\//, '')
    .replace(/\/+$/, '');

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

export const createLinkResolver = (options: {
  readonly pages: readonly LinkablePage[];
  readonly files: readonly string[];
  readonly uids: ReadonlySet<string>;
  readonly baseUrl: string | undefined;
  readonly contentRoot: string;
  /** Folder of docfx.json: DocFX `~/x.md` paths are relative to it. */
  readonly docfxRoot?: string | undefined;
  readonly redirects?: readonly { readonly source: string; readonly destination: string }[];
  /** Version group (`specification`) → its latest version (`2026-07-28`), for `/…/latest/…`. */
  readonly latest?: ReadonlyMap<string, string>;
  /** Site paths to try for a link nothing else matched (Docusaurus links by doc id). */
  readonly alternatives?: (path: string, fromFile: string) => readonly string[];
}): LinkResolver => {
  const byFile = new Map<string, string>();
  const byPath = new Map<string, string>();
  const anchors = new Map<string, Set<string>>();
  for (const page of options.pages) {
    const fileKey = normalizePagePath(page.file);
    if (!byFile.has(fileKey)) byFile.set(fileKey, page.uid);
    if (page.path !== undefined) {
      const pathKey = normalizePagePath(page.path.replace(/^\//, ''));
      if (!byPath.has(pathKey)) byPath.set(pathKey, page.uid);
    }
    anchors.set(page.uid, new Set(page.anchors.map(anchorKey)));
  }
  for (const page of options.pages) {
    for (const alias of page.aliases ?? []) {
      const aliasKey = normalizePagePath(alias.replace(/^\//, ''));
      if (!byPath.has(aliasKey)) byPath.set(aliasKey, page.uid);
    }
  }
  const files = new Set(options.files);
  const base = (() => {
    if (!options.baseUrl) return undefined;
    try {
      const url = new URL(options.baseUrl);
      return { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
    } catch {
      return undefined;
    }
  })();
  const contentPrefix = options.contentRoot === '' ? '' : `${options.contentRoot}/`;

  const direct = (path: string): string | undefined => {
    const key = normalizePagePath(path.replace(/^\/+/, ''));
    return byPath.get(key) ?? byFile.get(normalizePagePath(contentPrefix + key));
  };
  /** A site path, directly, through `latest` in a version folder's place, or a redirect. */
  const bySitePath = (path: string): string | undefined => {
    const found = direct(path);
    if (found !== undefined) return found;
    const segments = path.replace(/^\/+/, '').split('/');
    const at = segments.indexOf('latest');
    const version = at === -1 ? undefined : options.latest?.get(segments.slice(0, at).join('/'));
    if (version !== undefined) {
      const replaced = direct(
        `/${[...segments.slice(0, at), version, ...segments.slice(at + 1)].join('/')}`,
      );
      if (replaced !== undefined) return replaced;
    }
    for (const redirect of options.redirects ?? []) {
      const target = applyRedirect(path, redirect.source, redirect.destination);
      if (target !== undefined && target !== path) return direct(target.replace(/[?#].*$/, ''));
    }
    return undefined;
  };

  const missing = (target: string): LinkTarget => ({
    kind: 'missing',
    target,
    fix: 'fix the link, or ingest the folder that holds that page too (a site ingested in parts links across them)',
  });

  const resolvePath = (
    rawPath: string,
    anchor: string | undefined,
    from: { file: string; path: string | undefined },
  ): LinkTarget => {
    const path = decode(rawPath);
    let uid: string | undefined;
    let target: string;
    if (path.startsWith('/')) {
      target = path;
      uid = bySitePath(path);
      if (uid === undefined && base && base.path !== '' && path.startsWith(base.path)) {
        uid = bySitePath(path.slice(base.path.length));
      }
      if (uid === undefined && files.has(contentPrefix + path.slice(1))) return { kind: 'asset' };
    } else {
      const fromDir = path.startsWith('~/') ? (options.docfxRoot ?? '') : posix.dirname(from.file);
      const file = posix.normalize(posix.join(fromDir, path.replace(/^~\//, '')));
      target = file;
      uid = byFile.get(normalizePagePath(file));
      if (uid === undefined && from.path !== undefined) {
        // Sites that resolve relative links against the page's URL rather than its file.
        const urlDir = from.path.endsWith('/') ? from.path : posix.dirname(from.path);
        uid = bySitePath(posix.normalize(posix.join(urlDir, path)));
      }
      if (uid === undefined && files.has(file)) return { kind: 'asset' };
    }
    for (const candidate of uid === undefined
      ? (options.alternatives?.(path, from.file) ?? [])
      : [])
      uid ??= bySitePath(candidate);
    if (uid !== undefined) return { kind: 'node', uid, anchor };
    if (NOT_A_PAGE.test(path)) return { kind: 'asset' };
    return missing(target);
  };

  return {
    resolve: (href, from) => {
      const text = href.trim();
      if (text === '') return { kind: 'self' };
      if (/^xref:/i.test(text)) {
        const uid = decode(text.slice(5).replace(/[?#].*$/, ''));
        return options.uids.has(uid)
          ? { kind: 'node', uid, anchor: /#([^?]+)/.exec(text)?.[1] }
          : {
              kind: 'missing',
              target: uid,
              fix: `no node has uid ${uid}: fix the xref or add the page`,
            };
      }
      if (/^(mailto|tel|javascript|data|vbscript|file):/i.test(text) || text.startsWith('//'))
        return { kind: 'external' };
      let rest = text;
      if (/^[a-z][a-z0-9+.-]*:/i.test(text)) {
        let url: URL;
        try {
          url = new URL(text);
        } catch {
          return { kind: 'external' };
        }
        if (!base || url.origin !== base.origin || !url.pathname.startsWith(base.path))
          return { kind: 'external' };
        rest = `${url.pathname}${url.hash}`;
      }
      const hashAt = rest.indexOf('#');
      const anchor = hashAt === -1 ? undefined : decode(rest.slice(hashAt + 1)) || undefined;
      const path = (hashAt === -1 ? rest : rest.slice(0, hashAt)).replace(/\?.*$/, '');
      if (path === '') return { kind: 'self' };
      return resolvePath(path, anchor, from);
    },
    hasUid: (uid) => options.uids.has(uid),
    hasAnchor: (uid, anchor) => {
      const set = anchors.get(uid);
      return set === undefined || set.has(anchorKey(anchor));
    },
    uidOfPath: (reference) => {
      if (options.uids.has(reference)) return reference;
      const key = normalizePagePath(reference.replace(/^\/+/, ''));
      return byPath.get(key) ?? byFile.get(key);
    },
  };
};
