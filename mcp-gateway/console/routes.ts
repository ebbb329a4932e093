import type { IncomingMessage, ServerResponse } from 'node:http';
import { decideAccess } from '../../services/access/grants.js';
import type { Logger } from '../../services/runtime/logger.js';
import type { TokenAuth } from '../auth/tokens.js';
import { HttpRefusal } from '../http/node-bridge.js';
import type { RouteContext } from '../http/server.js';
import type { ToolDefinition } from '../registry.js';
import type { GatewayServices } from '../services.js';
import { decide, type ApprovalMode, type Decision } from './actions.js';
import type { ConsoleAssets } from './assets.js';
import {
  errorPage,
  isSameOrigin,
  pageSize,
  readForm,
  redirect,
  sendError,
  sendHtml,
  type ConsoleRequest,
} from './http.js';
import { serveLive } from './live.js';
import { renderAudit, type AuditSources } from './pages/audit.js';
import { renderDocPage, renderDocs } from './pages/docs.js';
import { renderLogin } from './pages/login.js';
import {
  renderBoard,
  renderRequest,
  type BoardFilters,
  type BoardPage,
  type DodResult,
  type GetRequestResult,
  type RequestSummary,
} from './pages/requests.js';
import { createResourceBrowser, createToolReader, type ToolReader } from './reads.js';
import {
  readCookie,
  SESSION_COOKIE,
  sessionCookieHeader,
  type ConsoleSessions,
} from './session.js';

export type { AuditSources };

export interface ConsoleHandlerDeps {
  readonly services: GatewayServices;
  readonly tools: readonly ToolDefinition[];
  readonly auth: TokenAuth;
  readonly approval: ApprovalMode;
  readonly logger: Logger;
  readonly sessions: ConsoleSessions;
  readonly assets: ConsoleAssets;
  readonly audit?: AuditSources | undefined;
  readonly onLoginCodeUsed: () => void;
}

/** A board page shows at most this many requests (list_requests pages of 100). */
const BOARD_MAX = 1000;
const PAGE = 100;

const optional = (value: string | null): string | undefined =>
  value === null || value.trim() === '' ? undefined : value.trim();

const NOTICES: Readonly<Record<string, string>> = {
  approved: 'Approved: the request advanced.',
  rejected: 'Rejected: the proposer is told why.',
  'intake-rejected': 'Intake rejected.',
  withdrawn: 'Withdrawn: the requester is told why.',
};

/** One board page: up to `limit` requests after the keyset cursor, and the next page's. */
const loadBoard = async (
  read: ToolReader,
  request: ConsoleRequest,
  filters: BoardFilters,
  page: BoardPage,
): Promise<{ requests: RequestSummary[]; next: string | null }> => {
  const caller = request.identity?.caller;
  if (!caller) throw new Error('the board needs a login');
  const requests: RequestSummary[] = [];
  let cursor: string | null = page.after ?? null;
  do {
    const answer = (await read(
      caller,
      'list_requests',
      {
        ...(filters.product ? { product: filters.product } : {}),
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.requester ? { requester: filters.requester } : {}),
        ...(cursor === null ? {} : { cursor }),
        limit: Math.min(PAGE, page.limit - requests.length),
      },
      request.signal,
    )) as unknown as { results: RequestSummary[]; next_cursor: string | null };
    requests.push(...answer.results);
    cursor = answer.next_cursor;
  } while (cursor !== null && requests.length < page.limit);
  return { requests, next: cursor };
};

export const createConsoleHandler = (deps: ConsoleHandlerDeps) => {
  const read = createToolReader(deps.services, deps.tools);
  const browse = createResourceBrowser(deps.services);
  const { sessions } = deps;

  const secureCookies = (route: RouteContext): boolean => route.urls.base.protocol === 'https:';

  const login = async (request: ConsoleRequest): Promise<void> => {
    const { req, res } = request;
    if (req.method !== 'POST') {
      const code = optional(request.query.get('code'));
      sendHtml(
        res,
        200,
        renderLogin(sessions.localMode ? { mode: 'local', code } : { mode: 'token' }),
      );
      return;
    }
    if (!isSameOrigin(req, request.route.urls.base)) {
      errorPage(request, 403, 'Refused', 'Sign in from the console page itself.');
      return;
    }
    const form = await readForm(request);
    const cookie = sessions.localMode
      ? sessions.loginWithCode(form.get('code') ?? '', (form.get('name') ?? '').trim())
      : sessions.loginWithToken(form.get('token') ?? '');
    if (cookie === undefined) {
      const error = sessions.localMode
        ? 'That login link was used already or is not this server’s, or the name is not 1–64 letters, digits, . _ -. Use the newest link from the server log.'
        : 'That token is not one of this server’s.';
      sendHtml(
        res,
        401,
        renderLogin(
          sessions.localMode ? { mode: 'local', code: undefined, error } : { mode: 'token', error },
        ),
      );
      return;
    }
    if (sessions.localMode) deps.onLoginCodeUsed();
    redirect(res, '/console/', {
      'set-cookie': sessionCookieHeader(cookie, secureCookies(request.route)),
    });
  };

  /** A POST that changes something: a login, the page's own origin, its CSRF token. */
  const action = async (request: ConsoleRequest): Promise<URLSearchParams | undefined> => {
    if (!request.identity) {
      errorPage(request, 401, 'Sign in first', 'This action needs a console login.');
      return undefined;
    }
    if (!isSameOrigin(request.req, request.route.urls.base)) {
      errorPage(request, 403, 'Refused', 'Actions are taken from the console’s own pages only.');
      return undefined;
    }
    const form = await readForm(request);
    if (!sessions.checkCsrf(request.identity, form.get('csrf') ?? undefined)) {
      errorPage(
        request,
        403,
        'Refused',
        'The form’s CSRF token does not belong to this login; reload the page and try again.',
      );
      return undefined;
    }
    return form;
  };

  const board = async (request: ConsoleRequest): Promise<void> => {
    const filters: BoardFilters = {
      product: optional(request.query.get('product')),
      status: optional(request.query.get('status')),
      requester: optional(request.query.get('requester')),
    };
    const page: BoardPage = {
      after: optional(request.query.get('after')),
      limit: pageSize(request.query.get('limit'), BOARD_MAX),
      defaultLimit: BOARD_MAX,
    };
    const { requests, next } = await loadBoard(read, request, filters, page);
    sendHtml(request.res, 200, renderBoard(request, filters, page, requests, next));
  };

  const requestPage = async (request: ConsoleRequest, requestId: string): Promise<void> => {
    const caller = request.identity?.caller;
    if (!caller) return;
    const asOf = optional(request.query.get('as_of'));
    const view = (await read(
      caller,
      'get_request',
      { request_id: requestId, ...(asOf === undefined ? {} : { as_of: asOf }) },
      request.signal,
    )) as unknown as GetRequestResult;
    const dod =
      asOf === undefined
        ? ((await read(
            caller,
            'get_dod',
            { request_id: requestId },
            request.signal,
          )) as unknown as DodResult)
        : undefined;
    const done = optional(request.query.get('done'));
    sendHtml(
      request.res,
      200,
      renderRequest(
        request,
        view,
        dod,
        deps.approval.kind === 'github'
          ? { kind: 'github' }
          : { kind: 'local', mayDecide: decideAccess(caller.grants, 'decide').allowed },
        done === undefined ? undefined : NOTICES[done],
      ),
    );
  };

  const decision = async (
    request: ConsoleRequest,
    requestId: string,
    choice: (form: URLSearchParams) => Decision,
    done: string,
  ): Promise<void> => {
    const form = await action(request);
    if (!form || !request.identity) return;
    await decide(
      { services: deps.services, read, approval: deps.approval },
      request.identity,
      requestId,
      choice(form),
      request.signal,
    );
    redirect(request.res, `/console/requests/${encodeURIComponent(requestId)}?done=${done}`);
  };

  const dispatch = async (request: ConsoleRequest): Promise<void> => {
    const { segments, req, res } = request;
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const [first, second, third, fourth, fifth, ...rest] = segments;
    if (first === 'assets' && method === 'GET' && second !== undefined && third === undefined) {
      if (deps.assets.send(res, second, req.headers['if-none-match'])) return;
    }
    if (first === 'login' && second === undefined) return login(request);
    if (!request.identity) {
      if (method === 'GET' && first !== 'live') {
        redirect(res, '/console/login');
        return;
      }
      errorPage(request, 401, 'Sign in first', 'This needs a console login.');
      return;
    }
    if (method === 'POST') {
      if (first === 'logout' && second === undefined) {
        if (!(await action(request))) return;
        redirect(res, '/console/login', {
          'set-cookie': sessionCookieHeader(undefined, secureCookies(request.route)),
        });
        return;
      }
      if (first === 'requests' && second !== undefined && rest.length === 0) {
        if (third === 'proposals' && fourth !== undefined && fifth === 'approve')
          return decision(
            request,
            second,
            () => ({ kind: 'approve', proposalId: fourth }),
            'approved',
          );
        if (third === 'proposals' && fourth !== undefined && fifth === 'reject')
          return decision(
            request,
            second,
            (form) => ({ kind: 'reject', proposalId: fourth, reason: form.get('reason') ?? '' }),
            'rejected',
          );
        if (third === 'reject-intake' && fourth === undefined)
          return decision(
            request,
            second,
            (form) => ({ kind: 'reject-intake', reason: form.get('reason') ?? '' }),
            'intake-rejected',
          );
        if (third === 'withdraw' && fourth === undefined)
          return decision(
            request,
            second,
            (form) => ({ kind: 'withdraw', reason: form.get('reason') ?? '' }),
            'withdrawn',
          );
      }
      throw new HttpRefusal(405, 'Nothing to post here.', { allow: 'GET' });
    }
    if (first === undefined || first === '') return board(request);
    if (first === 'live' && second === undefined) {
      serveLive(res, request.identity, deps.services.changes);
      return;
    }
    if (first === 'requests' && second !== undefined && third === undefined)
      return requestPage(request, second);
    if (first === 'docs' && second === undefined) {
      sendHtml(res, 200, await renderDocs(request, read, browse));
      return;
    }
    if (first === 'docs' && second !== undefined && third === undefined) {
      sendHtml(res, 200, await renderDocPage(request, read, second));
      return;
    }
    if (first === 'audit' && second === undefined) {
      sendHtml(res, 200, await renderAudit(request, deps.audit));
      return;
    }
    errorPage(request, 404, 'Not found', `Nothing at ${request.route.path}.`);
  };

  return async (req: IncomingMessage, res: ServerResponse, route: RouteContext): Promise<void> => {
    if (route.path === '/console') {
      redirect(res, '/console/');
      return;
    }
    const identity = sessions.identify(readCookie(req.headers.cookie, SESSION_COOKIE));
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    let segments: string[];
    try {
      segments = route.path
        .slice('/console/'.length)
        .split('/')
        .map((segment) => decodeURIComponent(segment));
    } catch {
      segments = ['\u0000'];
    }
    if (segments.at(-1) === '') segments.pop();
    const request: ConsoleRequest = {
      req,
      res,
      route,
      segments,
      query: route.url.searchParams,
      identity,
      csrf: identity ? sessions.csrfToken(identity) : '',
      signal: controller.signal,
    };
    try {
      await dispatch(request);
    } catch (error) {
      if (res.headersSent) {
        res.end();
        return;
      }
      sendError(request, error);
    }
  };
};
