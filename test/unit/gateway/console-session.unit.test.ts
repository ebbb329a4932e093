import { describe, expect, it } from 'vitest';
import { createTokenAuth, hashToken } from '../../../mcp-gateway/auth/tokens.js';
import { isSameOrigin, SECURITY_HEADERS } from '../../../mcp-gateway/console/http.js';
import { html, trusted } from '../../../mcp-gateway/console/html.js';
import { renderMarkdown } from '../../../mcp-gateway/console/pages/docs.js';
import { externalLink } from '../../../mcp-gateway/console/pages/requests.js';
import {
  createConsoleSessions,
  readCookie,
  sessionCookieHeader,
} from '../../../mcp-gateway/console/session.js';
import type { IncomingMessage } from 'node:http';

const grants = { products: '*', types: '*', propose: false, writeNetworks: false } as const;
const tokenAuth = (tokens: Record<string, string>) =>
  createTokenAuth(
    Object.fromEntries(
      Object.entries(tokens).map(([token, name]) => [hashToken(token), { name, grants }]),
    ),
  );
const SECRET = 'a-console-secret-of-at-least-32-characters';

describe('console sessions', () => {
  it('given a configured token, when it signs in, then the cookie identifies its caller and a forged or foreign cookie identifies nobody', () => {
    const sessions = createConsoleSessions({
      auth: tokenAuth({ 't-alice': 'alice' }),
      secret: SECRET,
    });
    expect(sessions.loginWithToken('not-a-token')).toBeUndefined();
    const cookie = sessions.loginWithToken('t-alice') ?? '';
    const identity = sessions.identify(cookie);
    expect(identity?.actor).toBe('token:alice');
    expect(identity?.decider).toBe('token:alice');
    // The cookie holds no token and no token hash.
    expect(Buffer.from(cookie.split('.')[0] ?? '', 'base64url').toString()).not.toContain(
      hashToken('t-alice'),
    );
    const [body, signature] = cookie.split('.');
    const tampered = `${Buffer.from(
      Buffer.from(body ?? '', 'base64url')
        .toString()
        .replace('"k":"t"', '"k":"l"'),
    ).toString('base64url')}.${signature ?? ''}`;
    expect(sessions.identify(tampered)).toBeUndefined();
    const other = createConsoleSessions({
      auth: tokenAuth({ 't-alice': 'alice' }),
      secret: `${SECRET}!`,
    });
    expect(other.identify(cookie)).toBeUndefined();
    // Another replica with the same secret and table accepts it.
    const replica = createConsoleSessions({
      auth: tokenAuth({ 't-alice': 'alice' }),
      secret: SECRET,
    });
    expect(replica.identify(cookie)?.actor).toBe('token:alice');
  });

  it('given a session, when its token is revoked or the session has expired, then it identifies nobody', () => {
    let now = 1_000_000;
    const sessions = createConsoleSessions({
      auth: tokenAuth({ 't-alice': 'alice' }),
      secret: SECRET,
      now: () => now,
    });
    const cookie = sessions.loginWithToken('t-alice') ?? '';
    const revoked = createConsoleSessions({ auth: tokenAuth({ 't-bob': 'bob' }), secret: SECRET });
    expect(revoked.identify(cookie)).toBeUndefined();
    now += 12 * 60 * 60 * 1000 + 1;
    expect(sessions.identify(cookie)).toBeUndefined();
  });

  it('given local mode, when the one-time code is used, then it signs in once by name and is replaced', () => {
    const sessions = createConsoleSessions({ auth: tokenAuth({}) });
    expect(sessions.localMode).toBe(true);
    const code = sessions.currentLoginCode();
    expect(sessions.loginWithToken('anything')).toBeUndefined();
    expect(sessions.loginWithCode(code, 'bad name!')).toBeUndefined();
    const cookie = sessions.loginWithCode(code, 'alice');
    expect(sessions.identify(cookie)?.actor).toBe('maintainer:alice');
    expect(sessions.identify(cookie)?.decider).toBe('alice');
    expect(sessions.loginWithCode(code, 'mallory')).toBeUndefined();
    expect(sessions.currentLoginCode()).not.toBe(code);
  });

  it('given two sessions, when CSRF tokens are checked, then each accepts only its own', () => {
    const sessions = createConsoleSessions({
      auth: tokenAuth({ 't-a': 'a', 't-b': 'b' }),
      secret: SECRET,
    });
    const a = sessions.identify(sessions.loginWithToken('t-a'));
    const b = sessions.identify(sessions.loginWithToken('t-b'));
    if (!a || !b) throw new Error('both sign in');
    expect(sessions.checkCsrf(a, sessions.csrfToken(a))).toBe(true);
    expect(sessions.checkCsrf(a, sessions.csrfToken(b))).toBe(false);
    expect(sessions.checkCsrf(a, undefined)).toBe(false);
    expect(sessions.checkCsrf(a, '')).toBe(false);
  });

  it('given the cookie helpers, when a session is set and read back, then it is HttpOnly, SameSite=Strict and scoped to /console', () => {
    const header = sessionCookieHeader('v.s', false);
    expect(header).toContain('HttpOnly');
    expect(header).toContain('SameSite=Strict');
    expect(header).toContain('Path=/console');
    expect(header).not.toContain('Secure');
    expect(sessionCookieHeader('v.s', true)).toContain('Secure');
    expect(sessionCookieHeader(undefined, false)).toContain('Max-Age=0');
    expect(readCookie('a=1; cogitave_console=v.s; b=2', 'cogitave_console')).toBe('v.s');
    expect(readCookie(undefined, 'cogitave_console')).toBeUndefined();
  });
});

describe('console pages', () => {
  it('given text from a request, when interpolated, then it is escaped; only trusted markup passes', () => {
    const evil = '<script>alert(1)</script>"\'&';
    expect(html`<p title="${evil}">${evil}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;">&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</p>',
    );
    expect(html`${trusted('<b>ok</b>')}`.text).toBe('<b>ok</b>');
    expect(html`${[evil, 1, null, false]}`.text).toBe(
      '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;1',
    );
  });

  it('given Markdown with raw HTML and a javascript: link, when rendered, then neither survives and headings get anchors', () => {
    const { body, sections } = renderMarkdown(
      '# Title\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1))\n\n## Part two\n',
    );
    expect(body.text).not.toContain('<img');
    expect(body.text).toContain('&lt;img');
    expect(body.text).not.toContain('href="javascript:');
    expect(sections).toEqual([
      { id: 'h-title', title: 'Title', level: 1 },
      { id: 'h-part-two', title: 'Part two', level: 2 },
    ]);
    expect(body.text).toContain('<h2 id="h-part-two">');
    // The page's title is its own h1: a body repeating it drops that heading.
    const titled = renderMarkdown('# Title\n\nText\n\n## Part two\n', 'Title');
    expect(titled.body.text).not.toContain('<h1');
    expect(titled.sections.map((section) => section.title)).toEqual(['Part two']);
  });

  it('given links from stored data, when rendered, then only http(s) become links', () => {
    expect(externalLink('https://github.com/acme/widgets/pull/1', 'PR').text).toContain(
      'href="https://github.com/acme/widgets/pull/1"',
    );
    expect(externalLink('javascript:alert(1)', 'x').text).not.toContain('href');
    expect(externalLink(null, 'none').text).toBe('none');
  });

  it('given the security headers and POST origins, when checked, then the policy is strict and only the console origin passes', () => {
    const policy = SECURITY_HEADERS['content-security-policy'] ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe');
    const base = new URL('http://127.0.0.1:3100/');
    const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
    expect(
      isSameOrigin(req({ origin: 'http://127.0.0.1:3100', host: '127.0.0.1:3100' }), base),
    ).toBe(true);
    expect(
      isSameOrigin(req({ origin: 'http://localhost:3100', host: 'localhost:3100' }), base),
    ).toBe(true);
    expect(
      isSameOrigin(req({ origin: 'http://localhost:8080', host: 'localhost:3100' }), base),
    ).toBe(false);
    expect(isSameOrigin(req({ origin: 'null', host: '127.0.0.1:3100' }), base)).toBe(false);
    expect(isSameOrigin(req({ host: '127.0.0.1:3100' }), base)).toBe(false);
  });
});
