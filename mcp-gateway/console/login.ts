import type { RouteContext } from '../http/server.js';
import { noteRefusal } from '../http/refusals.js';
import type { ConsoleContext } from './context.js';
import { optional } from './context.js';
import {
  errorPage,
  isSameOrigin,
  readForm,
  redirect,
  sendHtml,
  type ConsoleRequest,
} from './http.js';
import { renderLogin } from './pages/login.js';
import { sessionCookieHeader, type ConsoleSessions } from './session.js';

/** Session cookies are Secure when the console is served over https. */
export const secureCookies = (route: RouteContext): boolean =>
  route.urls.base.protocol === 'https:';

/** GET: the login form; POST: a login code (local mode) or a token, answered with a session. */
export const serveLogin = async (
  { deps }: ConsoleContext,
  request: ConsoleRequest,
): Promise<void> => {
  const { sessions } = deps;
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
    noteRefusal(res, { reason: 'origin' });
    errorPage(request, 403, 'Refused', 'Sign in from the console page itself.');
    return;
  }
  const form = await readForm(request);
  const cookie = sessions.localMode
    ? sessions.loginWithCode(form.get('code') ?? '', (form.get('name') ?? '').trim())
    : sessions.loginWithToken(form.get('token') ?? '');
  if (cookie === undefined) {
    noteRefusal(res, { reason: sessions.localMode ? 'invalid_login_code' : 'invalid_token' });
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

/**
 * A POST that changes something: a login, the page's own origin, its CSRF token. Answers the
 * form, or undefined once the refusal is sent.
 */
export const readActionForm = async (
  sessions: ConsoleSessions,
  request: ConsoleRequest,
): Promise<URLSearchParams | undefined> => {
  if (!request.identity) {
    errorPage(request, 401, 'Sign in first', 'This action needs a console login.');
    return undefined;
  }
  if (!isSameOrigin(request.req, request.route.urls.base)) {
    noteRefusal(request.res, { reason: 'origin' });
    errorPage(request, 403, 'Refused', 'Actions are taken from the console’s own pages only.');
    return undefined;
  }
  const form = await readForm(request);
  if (!sessions.checkCsrf(request.identity, form.get('csrf') ?? undefined)) {
    noteRefusal(request.res, { reason: 'csrf' });
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
