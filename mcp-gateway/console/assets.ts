import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './http.js';

/**
 * The console's static files, read once at start: a stylesheet, the live-update script and an icon
 * (plain, dependency-free; the pages work without it). `npm run build` copies them beside the
 * compiled code, and they are served from here only (no CDN).
 */
export interface ConsoleAssets {
  /** True when `name` is an asset and was sent. */
  send(res: ServerResponse, name: string, ifNoneMatch: string | undefined): boolean;
  /** Bytes of each asset, for the README's figures. */
  readonly sizes: Readonly<Record<string, number>>;
}

const TYPES: Readonly<Record<string, string>> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};

export const createConsoleAssets = (): ConsoleAssets => {
  const files = new Map(
    Object.keys(TYPES).map((name) => {
      const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
      return [name, { body, etag }];
    }),
  );
  return {
    sizes: Object.fromEntries([...files].map(([name, file]) => [name, file.body.length])),
    send: (res, name, ifNoneMatch) => {
      const file = files.get(name);
      if (!file) return false;
      const headers = {
        ...SECURITY_HEADERS,
        'content-type': TYPES[name] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
        etag: file.etag,
      };
      if (ifNoneMatch === file.etag) {
        res.writeHead(304, headers);
        res.end();
      } else {
        res.writeHead(200, { ...headers, 'content-length': String(file.body.length) });
        res.end(file.body);
      }
      return true;
    },
  };
};
