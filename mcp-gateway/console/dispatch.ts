import { HttpRefusal } from '../http/node-bridge.js';
import type { ConsoleContext } from './context.js';
import { errorPage, redirect, sendHtml, type ConsoleRequest } from './http.js';
import { serveLive } from './live.js';
import { readActionForm, secureCookies, serveLogin } from './login.js';
import { renderAudit } from './pages/audit.js';
import { renderDocPage, renderDocs } from './pages/docs.js';
import { postDecision, serveBoard, serveRequestPage } from './request-routes.js';
import { sessionCookieHeader } from './session.js';

/** The console's POST routes (a login present): logout and the decisions on a request. */
const dispatchPost = async (context: ConsoleContext, request: ConsoleRequest): Promise<void> => {
  const [first, second, third, fourth, fifth, ...rest] = request.segments;
  if (first === 'logout' && second === undefined) {
    if (!(await readActionForm(context.deps.sessions, request))) return;
    redirect(request.res, '/console/login', {
      'set-cookie': sessionCookieHeader(undefined, secureCookies(request.route)),
    });
    return;
  }
  if (first === 'requests' && second !== undefined && rest.length === 0) {
    if (third === 'proposals' && fourth !== undefined && fifth === 'approve')
      return postDecision(
        context,
        request,
        second,
        () => ({ kind: 'approve', proposalId: fourth }),
        'approved',
      );
    if (third === 'proposals' && fourth !== undefined && fifth === 'reject')
      return postDecision(
        context,
        request,
        second,
        (form) => ({ kind: 'reject', proposalId: fourth, reason: form.get('reason') ?? '' }),
        'rejected',
      );
    if (third === 'reject-intake' && fourth === undefined)
      return postDecision(
        context,
        request,
        second,
        (form) => ({ kind: 'reject-intake', reason: form.get('reason') ?? '' }),
        'intake-rejected',
      );
    if (third === 'withdraw' && fourth === undefined)
      return postDecision(
        context,
        request,
        second,
        (form) => ({ kind: 'withdraw', reason: form.get('reason') ?? '' }),
        'withdrawn',
      );
  }
  throw new HttpRefusal(405, 'Nothing to post here.', { allow: 'GET' });
};

/** The console's pages (a login present): the board, a request, live updates, docs, audit. */
const dispatchGet = async (
  context: ConsoleContext,
  request: ConsoleRequest,
  identity: NonNullable<ConsoleRequest['identity']>,
): Promise<void> => {
  const { deps, read, browse } = context;
  const { res } = request;
  const [first, second, third] = request.segments;
  if (first === undefined || first === '') return serveBoard(context, request);
  if (first === 'live' && second === undefined) {
    serveLive(res, identity, deps.services.changes);
    return;
  }
  if (first === 'requests' && second !== undefined && third === undefined)
    return serveRequestPage(context, request, second);
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

/** Assets and the login page for anyone; everything else for a login only. */
export const dispatch = async (context: ConsoleContext, request: ConsoleRequest): Promise<void> => {
  const { segments, req, res } = request;
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  const [first, second, third] = segments;
  if (first === 'assets' && method === 'GET' && second !== undefined && third === undefined) {
    if (context.deps.assets.send(res, second, req.headers['if-none-match'])) return;
  }
  if (first === 'login' && second === undefined) return serveLogin(context, request);
  if (!request.identity) {
    if (method === 'GET' && first !== 'live') {
      redirect(res, '/console/login');
      return;
    }
    errorPage(request, 401, 'Sign in first', 'This needs a console login.');
    return;
  }
  if (method === 'POST') return dispatchPost(context, request);
  return dispatchGet(context, request, request.identity);
};
