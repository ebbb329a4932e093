import type { IncomingMessage, ServerResponse } from 'node:http';
import { logActivity, tokenNameOf } from '../../services/runtime/activity.js';
import type { Logger } from '../../services/runtime/logger.js';

/**
 * Refused calls in the activity log: every 401, 403 and 429 the HTTP server answers, on any
 * route (/mcp, REST, the console), is one `refused` line, written by the server when the answer
 * is sent (server.ts), so no route can refuse without a line and none writes two. A route tells
 * what only it knows — who called, why — by noting it on the response beforehand; the bearer
 * challenge (`WWW-Authenticate`) of /mcp already names its error and scope.
 */
export const REFUSAL_STATUSES: ReadonlySet<number> = new Set([401, 403, 429]);

export interface RefusalNote {
  /** The caller's actor once authenticated (`token:<name>`, `maintainer:<name>`, `local`). */
  readonly actor?: string;
  /** A short code: `invalid_token`, `insufficient_scope`, `csrf`, `origin`, … */
  readonly reason?: string;
  /** The grant that was missing. */
  readonly scope?: string;
  /** The route logs its own line for this answer (the GitHub webhook receiver). */
  readonly logged?: boolean;
}

const notes = new WeakMap<ServerResponse, RefusalNote>();

/** Adds to what the refusal line of `res` will say, if it is answered with a refusal. */
export const noteRefusal = (res: ServerResponse, note: RefusalNote): void => {
  notes.set(res, { ...notes.get(res), ...note });
};

/**
 * What a bearer challenge says (its error and scope), for a refusal whose headers never pass
 * through `res.setHeader` (a fetch-style `Response`); a reason noted already is kept.
 */
export const noteChallenge = (res: ServerResponse, header: string | null): void => {
  notes.set(res, { ...challengeOf(header), ...notes.get(res) });
};

/** `Bearer error="insufficient_scope", scope="propose", …` → its error and scope. */
const challengeOf = (header: unknown): { reason?: string; scope?: string } => {
  const text = Array.isArray(header) ? header.join(', ') : typeof header === 'string' ? header : '';
  const error = /\berror="([^"]*)"/.exec(text)?.[1];
  const scope = /\bscope="([^"]*)"/.exec(text)?.[1];
  return { ...(error ? { reason: error } : {}), ...(scope ? { scope } : {}) };
};

const DEFAULT_REASON: Readonly<Record<number, string>> = {
  401: 'unauthenticated',
  403: 'forbidden',
  429: 'too_many',
};

/** Logs the refusal line of an answer just sent, when it is one. */
export const logRefusal = (
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
): void => {
  const status = res.statusCode;
  if (!REFUSAL_STATUSES.has(status)) return;
  const note = notes.get(res) ?? {};
  if (note.logged === true) return;
  const challenge = challengeOf(res.getHeader('www-authenticate'));
  logActivity(logger, {
    activity: 'refused',
    msg: `${req.method ?? 'GET'} ${route} refused (${String(status)})`,
    fields: {
      route,
      method: req.method ?? 'GET',
      status,
      actor: note.actor,
      token: tokenNameOf(note.actor),
      reason: note.reason ?? challenge.reason ?? DEFAULT_REASON[status],
      scope: note.scope ?? challenge.scope,
    },
  });
};

/** What a PERMISSION_DENIED tells a refusal line: the grant that was missing. */
export const refusalOfDenied = (error: {
  readonly details: Readonly<Record<string, unknown>>;
}): RefusalNote => ({
  reason: 'insufficient_scope',
  ...(typeof error.details.missing === 'string' ? { scope: error.details.missing } : {}),
});
