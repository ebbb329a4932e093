import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenAuth } from '../auth/tokens.js';
import { hashToken } from '../auth/tokens.js';
import { LOCAL_CALLER, type Caller } from '../registry.js';

/**
 * Console logins. A person logs in once (with a bearer token of the token table, or in local
 * no-auth mode with the one-time link the server prints at start) and gets a session cookie:
 * signed, HttpOnly, SameSite=Strict, holding no secret. The cookie names its token by an HMAC of
 * the token's hash, so the token table stays the only source of grants: revoke the token and
 * its sessions stop at the next request. Nothing is kept per session on the server, so a login
 * holds on every gateway replica that shares COGITAVE_CONSOLE_SECRET.
 */

/** Who is logged in: the caller every read and command runs as, and the name a decision records. */
export interface ConsoleIdentity {
  readonly caller: Caller;
  /** Recorded as `decidedBy` on a decision: the token's actor, or the local maintainer's name. */
  readonly decider: string;
  /** Recorded as the events' `actor`: `token:<name>`, or `maintainer:<name>` in local mode. */
  readonly actor: string;
  /** The session id (random per login): CSRF tokens are bound to it. */
  readonly sessionId: string;
}

export const SESSION_COOKIE = 'cogitave_console';
const SESSION_MS = 12 * 60 * 60 * 1000;
/** A local maintainer's name, as the CLI's `--as` takes it. */
export const MAINTAINER_NAME = /^[A-Za-z0-9._-]{1,64}$/;

interface SessionPayload {
  readonly v: 1;
  readonly sid: string;
  /** `t`: a token (`id` is the HMAC of its hash); `l`: local mode (`id` is the name). */
  readonly k: 't' | 'l';
  readonly id: string;
  readonly exp: number;
}

const b64 = (buffer: Buffer): string => buffer.toString('base64url');

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

export interface ConsoleSessionsOptions {
  readonly auth: TokenAuth;
  /** COGITAVE_CONSOLE_SECRET; unset: a random key (logins end with the process). */
  readonly secret?: string | undefined;
  readonly now?: () => number;
}

export interface ConsoleSessions {
  /** Local mode: no token table, so the one-time login link is the only way in. */
  readonly localMode: boolean;
  /** The current one-time login code (local mode); a new one once it is used. */
  currentLoginCode(): string;
  /** A cookie value for a bearer token, or undefined when the token is unknown. */
  loginWithToken(token: string): string | undefined;
  /** Local mode: a cookie value for the name, once per code; undefined when the code is wrong. */
  loginWithCode(code: string, name: string): string | undefined;
  /** The identity of a cookie value, or undefined (bad signature, expired, token revoked). */
  identify(cookie: string | undefined): ConsoleIdentity | undefined;
  /** The CSRF token of a session: every form of the session carries it. */
  csrfToken(identity: ConsoleIdentity): string;
  checkCsrf(identity: ConsoleIdentity, token: string | undefined): boolean;
}

export const createConsoleSessions = (options: ConsoleSessionsOptions): ConsoleSessions => {
  const key = options.secret !== undefined ? Buffer.from(options.secret) : randomBytes(32);
  const now = options.now ?? Date.now;
  const mac = (label: string, value: string): string =>
    b64(createHmac('sha256', key).update(`${label}\u0000${value}`).digest());
  const { auth } = options;
  const localMode = !auth.enabled;
  let loginCode = b64(randomBytes(24));

  const sign = (payload: Omit<SessionPayload, 'v' | 'sid' | 'exp'>): string => {
    const body = b64(
      Buffer.from(
        JSON.stringify({ v: 1, sid: b64(randomBytes(16)), exp: now() + SESSION_MS, ...payload }),
      ),
    );
    return `${body}.${mac('session', body)}`;
  };

  const tokenKey = (hash: string): string => mac('token', hash);

  const parse = (cookie: string): SessionPayload | undefined => {
    const [body, signature, ...rest] = cookie.split('.');
    if (body === undefined || signature === undefined || rest.length > 0) return undefined;
    if (!sameText(signature, mac('session', body))) return undefined;
    try {
      // Signed by us, so its shape is ours; only its age is checked.
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionPayload;
      return payload.exp > now() ? payload : undefined;
    } catch {
      return undefined;
    }
  };

  // Signed cookies name tokens by key; this maps keys back (the table is fixed per process).
  const keyToHash = new Map(auth.tokenHashes.map((hash) => [tokenKey(hash), hash]));
  const callerOfKey = (id: string): Caller | undefined => {
    const hash = keyToHash.get(id);
    return hash === undefined ? undefined : auth.callerOfHash(hash);
  };

  return {
    localMode,
    currentLoginCode: () => loginCode,
    loginWithToken: (token) => {
      const hash = hashToken(token.trim());
      if (localMode || !auth.callerOfHash(hash)) return undefined;
      return sign({ k: 't', id: tokenKey(hash) });
    },
    loginWithCode: (code, name) => {
      if (!localMode || !MAINTAINER_NAME.test(name) || !sameText(code, loginCode)) return undefined;
      loginCode = b64(randomBytes(24));
      return sign({ k: 'l', id: name });
    },
    identify: (cookie) => {
      const payload = cookie === undefined ? undefined : parse(cookie);
      if (!payload) return undefined;
      if (payload.k === 'l') {
        if (!localMode || !MAINTAINER_NAME.test(payload.id)) return undefined;
        return {
          caller: LOCAL_CALLER,
          decider: payload.id,
          actor: `maintainer:${payload.id}`,
          sessionId: payload.sid,
        };
      }
      const caller = localMode ? undefined : callerOfKey(payload.id);
      if (!caller) return undefined;
      return { caller, decider: caller.actor, actor: caller.actor, sessionId: payload.sid };
    },
    csrfToken: (identity) => mac('csrf', identity.sessionId),
    checkCsrf: (identity, token) =>
      token !== undefined && sameText(token, mac('csrf', identity.sessionId)),
  };
};

/** The value of one cookie in a `Cookie` header. */
export const readCookie = (header: string | undefined, name: string): string | undefined => {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
};

/** The `Set-Cookie` of a session (or its removal): HttpOnly, SameSite=Strict, the console only. */
export const sessionCookieHeader = (value: string | undefined, secure: boolean): string =>
  [
    `${SESSION_COOKIE}=${value ?? ''}`,
    'Path=/console',
    'HttpOnly',
    'SameSite=Strict',
    value === undefined ? 'Max-Age=0' : `Max-Age=${String(SESSION_MS / 1000)}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
