import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteContext } from '../http/server.js';
import { noteRefusal } from '../http/refusals.js';
import type { ConsoleHandlerDeps } from './context.js';
import { dispatch } from './dispatch.js';
import { redirect, sendError, type ConsoleRequest } from './http.js';
import { createResourceBrowser, createToolReader } from './reads.js';
import { readCookie, SESSION_COOKIE } from './session.js';

export type { AuditSources } from './pages/audit.js';
export type { ConsoleHandlerDeps } from './context.js';

/** The path below /console/, one decoded segment each (a malformed escape names nothing). */
const segmentsOf = (path: string): string[] => {
  let segments: string[];
  try {
    segments = path
      .slice('/console/'.length)
      .split('/')
      .map((segment) => decodeURIComponent(segment));
  } catch {
    segments = ['\u0000'];
  }
  if (segments.at(-1) === '') segments.pop();
  return segments;
};

/**
 * The console's HTTP handler: each request gets its login (from the session cookie), an abort
 * signal that fires when the client goes away, and one error page for whatever a route throws
 * (dispatch.ts routes it).
 */
export const createConsoleHandler = (deps: ConsoleHandlerDeps) => {
  const context = {
    deps,
    read: createToolReader(deps.services, deps.tools),
    browse: createResourceBrowser(deps.services),
  };
  const { sessions } = deps;

  return async (req: IncomingMessage, res: ServerResponse, route: RouteContext): Promise<void> => {
    if (route.path === '/console') {
      redirect(res, '/console/');
      return;
    }
    const identity = sessions.identify(readCookie(req.headers.cookie, SESSION_COOKIE));
    noteRefusal(res, identity ? { actor: identity.actor } : { reason: 'no_login' });
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const request: ConsoleRequest = {
      req,
      res,
      route,
      segments: segmentsOf(route.path),
      query: route.url.searchParams,
      identity,
      csrf: identity ? sessions.csrfToken(identity) : '',
      signal: controller.signal,
    };
    try {
      await dispatch(context, request);
    } catch (error) {
      if (res.headersSent) {
        res.end();
        return;
      }
      sendError(request, error);
    }
  };
};
