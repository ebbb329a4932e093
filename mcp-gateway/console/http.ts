import type { IncomingMessage, ServerResponse } from 'node:http';
import { CogitaveError, InvalidArgument } from '../../services/runtime/errors.js';
import { HttpRefusal } from '../http/node-bridge.js';
import { noteRefusal, refusalOfDenied } from '../http/refusals.js';
import type { RouteContext } from '../http/server.js';
import { HTTP_STATUS_BY_CODE } from '../rest/problems.js';
import { html, layout, type Html } from './html.js';
import type { ConsoleIdentity } from './session.js';

/**
 * What every console answer carries: a strict Content-Security-Policy (scripts, styles and
 * connections from the console itself only; no inline script, no framing, forms post here
 * only), no caching of pages and no Referer to other sites (the one-time login link must not leak).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it Chromium sends `Origin: null` on the forms' POSTs.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** One console request as the pages see it. */
export interface ConsoleRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly route: RouteContext;
  /** The path below `/console/`, split (`['requests', 'req-2026-0001']`). */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  readonly identity: ConsoleIdentity | undefined;
  /** The CSRF token of the session (empty without one). */
  readonly csrf: string;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

export const sendHtml = (
  res: ServerResponse,
  status: number,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): void => {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
};

export const redirect = (
  res: ServerResponse,
  location: string,
  headers: Readonly<Record<string, string>> = {},
): void => {
  res.writeHead(303, { ...SECURITY_HEADERS, location, 'cache-control': 'no-store', ...headers });
  res.end();
};

export const errorPage = (
  request: ConsoleRequest,
  status: number,
  title: string,
  message: string,
): void => {
  const main: Html = html`<h1>${title}</h1>
    <p class="error" role="alert">${message}</p>
    <p><a href="/console/">Back to the requests</a></p>`;
  sendHtml(
    request.res,
    status,
    layout({
      title,
      who: request.identity?.actor,
      csrf: request.csrf,
      main,
    }),
  );
};

/** A refused read or command, as a page with the status its code maps to. */
export const sendError = (request: ConsoleRequest, error: unknown): void => {
  if (error instanceof HttpRefusal) {
    errorPage(request, error.status, 'Refused', error.message);
    return;
  }
  if (!(error instanceof CogitaveError)) throw error;
  if (error.code === 'PERMISSION_DENIED') noteRefusal(request.res, refusalOfDenied(error));
  const status = HTTP_STATUS_BY_CODE[error.code];
  const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Refused';
  errorPage(request, status, title, error.message);
};

/** The fields of an `application/x-www-form-urlencoded` body (the only kind the forms send). */
export const readForm = async (request: ConsoleRequest): Promise<URLSearchParams> => {
  const type = (request.req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new HttpRefusal(415, 'Console forms are sent as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams((await request.route.readBody()).toString('utf8'));
};

/**
 * A state-changing request must come from a console page: a browser sends `Origin` with every
 * POST, and it must be this server as the request addressed it (the Host already passed the
 * edge's allowlist). Another site, even one on another localhost port, is refused before the
 * CSRF token is looked at.
 */
export const isSameOrigin = (req: IncomingMessage, base: URL): boolean => {
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return false;
  const host = req.headers.host;
  const scheme = base.protocol;
  return origin === base.origin || (host !== undefined && origin === `${scheme}//${host}`);
};

/** `?limit=`: a whole number from 1 to `max`, else `max`. */
export const pageSize = (value: string | null, max: number): number => {
  const text = value?.trim() ?? '';
  if (text === '') return max;
  const size = Number(text);
  if (!Number.isInteger(size) || size < 1 || size > max)
    throw new InvalidArgument(`limit must be a whole number from 1 to ${String(max)}.`);
  return size;
};
