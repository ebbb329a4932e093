import { existsSync, mkdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import {
  eventually,
  ingestShippedCorpus,
  startGateway,
  tokenTable,
  waitForProjections,
  type GatewayUnderTest,
} from './gateway/support.js';

/**
 * The console in a real browser (Debian's Chromium driven by playwright-core) against a real
 * gateway on real Postgres, with an agent on the official MCP SDK: the agent proposes over
 * MCP, the maintainer sees the proposal arrive live, approves it in the console, and the
 * agent's subscription hears the stage change. A restricted token sees only its grant; a
 * forged or login-less action changes nothing; four eyes holds in the console too.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
const SCREENSHOTS = '.cogitave/console-screenshots';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `console e2e skipped: no Chromium at ${CHROMIUM}; install Debian's "chromium" (bash .ci/run does) or set CHROMIUM_PATH`,
  );
}

const AGENT = 'agent-token-5d1e';
const MAINTAINER = 'maintainer-token-0b7c';
const WIDGETS = 'widgets-reader-token-a9f3';
const WIDGETS_MAINTAINER = 'widgets-maintainer-token-77e2';

const TOKENS = tokenTable({
  [AGENT]: { name: 'agent', grants: { propose: true } },
  [MAINTAINER]: { name: 'maintainer', grants: { propose: true, decide: true } },
  [WIDGETS]: { name: 'widgets-reader', grants: { products: ['widgets'] } },
  [WIDGETS_MAINTAINER]: {
    name: 'widgets-maintainer',
    grants: { products: ['widgets'], decide: true },
  },
});

const intake = (title: string, product: string) => ({
  title,
  problem: 'Auditors copy history by hand today, which takes hours per request and loses rows.',
  product,
  requester: 'audit-team',
  acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
});

const advance = (requestId: string) => ({
  request_id: requestId,
  to_stage: 'accepted',
  evidence: {},
  rationale: 'The problem is real and the acceptance criterion is measurable.',
});

let db: ThrowawayDatabase;
let gateway: GatewayUnderTest;
let browser: Browser | undefined;

const connectAgent = async (token: string): Promise<Client> => {
  const client = new Client({ name: 'console-e2e-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

const callTool = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
};

const signIn = async (
  token: string,
  on: GatewayUnderTest = gateway,
): Promise<{ context: BrowserContext; page: Page }> => {
  const context = await browser!.newContext({
    baseURL: on.url,
    viewport: { width: 1100, height: 820 },
  });
  const page = await context.newPage();
  await page.goto('/console/');
  // No login yet: the console sends the person to its sign-in page.
  expect(new URL(page.url()).pathname).toBe('/console/login');
  await page.getByLabel('Access token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/$/);
  return { context, page };
};

beforeAll(async () => {
  if (!hasChromium) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasChromium)('the console in a browser (token mode)', () => {
  let agent: Client;
  let coreRequest: string;
  let widgetsRequest: string;

  beforeAll(async () => {
    db = await createThrowawayDatabase('console_e2e');
    gateway = await startGateway(db.url, {
      MCP_TOKENS: TOKENS,
    });
    await ingestShippedCorpus(gateway.app);
    await waitForProjections([gateway.app], 60_000);
    agent = await connectAgent(AGENT);
    coreRequest = (await callTool(agent, 'request_intake', intake('Export audit trails', 'core')))
      .request_id as string;
    widgetsRequest = (await callTool(agent, 'request_intake', intake('Widget colours', 'widgets')))
      .request_id as string;
  });

  afterAll(async () => {
    await agent.close();
    await gateway.close();
    await db.drop();
  });

  it('given an agent on MCP and a maintainer in the console, when the agent proposes and the maintainer approves, then the page updates live and the agent hears the stage change', async () => {
    const heard: string[] = [];
    agent.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      heard.push(note.params.uri);
      return Promise.resolve();
    });
    const uri = `cogitave://request/${coreRequest}`;
    await agent.subscribeResource({ uri });

    const { context, page } = await signIn(MAINTAINER);
    await expect.poll(() => page.locator(`[data-request="${coreRequest}"]`).count()).toBe(1);
    await page.screenshot({ path: `${SCREENSHOTS}/board.png`, fullPage: true });
    await page.getByRole('link', { name: new RegExp(coreRequest) }).click();
    await page.waitForURL(new RegExp(`/console/requests/${coreRequest}$`));
    await expect.poll(() => page.locator('body').getAttribute('data-live-state')).toBe('open');
    await expect
      .poll(() => page.getByText('No proposal is waiting for a decision.').count())
      .toBe(1);

    // The agent proposes; the open page shows it without a reload.
    const proposal = await callTool(agent, 'advance_stage', advance(coreRequest));
    const proposalId = (proposal.proposal as { proposal_id: string }).proposal_id;
    const approve = page.getByRole('button', { name: 'Approve proposed → accepted' });
    await approve.waitFor({ timeout: 15_000 });
    // Swapped in by the live script: the page itself was never reloaded.
    expect(Number(await page.locator('body').getAttribute('data-refreshed'))).toBeGreaterThan(0);
    await expect.poll(() => page.getByText(`Proposal ${proposalId}`).count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${SCREENSHOTS}/request.png` });

    heard.length = 0;
    await approve.click();
    await page.waitForURL(/done=approved/);
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Approved' }).count())
      .toBe(1);
    expect(await page.locator('.meta strong').first().textContent()).toBe('accepted');
    // The decided proposal stays on the page, with its outcome and decider.
    const decided = page.locator(`li.proposal[id="${proposalId}"]`);
    expect(await decided.locator('h4 strong').textContent()).toBe('approved');
    expect(await decided.locator('.meta').textContent()).toMatch(
      /approved by token:maintainer via\s+local/,
    );

    // The agent's subscription hears it, and its read shows the maintainer's decision.
    await eventually(() => heard.includes(uri), 'resources/updated for the approved request');
    const after = await callTool(agent, 'get_request', { request_id: coreRequest });
    expect((after.request as { stage: string }).stage).toBe('accepted');
    const types = (after.history as { type: string; actor: string }[]).map(
      (entry) => `${entry.type} ${entry.actor}`,
    );
    expect(types).toContain('StageAdvanceApproved token:maintainer');
    expect(types).toContain('StageAdvanced token:maintainer');
    expect(after.proposals).toMatchObject([
      { proposalId, outcome: 'approved', decision: { by: 'token:maintainer', via: 'local' } },
    ]);
    await context.close();
  });

  it('given two gateway replicas on one database, when the agent proposes through one, then a page open on the other updates live', async () => {
    const replica = await startGateway(db.url, { MCP_TOKENS: TOKENS });
    try {
      const request = (await callTool(agent, 'request_intake', intake('Replica board', 'core')))
        .request_id as string;
      await waitForProjections([gateway.app, replica.app]);
      const { context, page } = await signIn(MAINTAINER, replica);
      await page.goto(`/console/requests/${request}`);
      await expect.poll(() => page.locator('body').getAttribute('data-live-state')).toBe('open');
      await callTool(agent, 'advance_stage', advance(request));
      await page
        .getByRole('button', { name: 'Approve proposed → accepted' })
        .waitFor({ timeout: 15_000 });
      expect(Number(await page.locator('body').getAttribute('data-refreshed'))).toBeGreaterThan(0);
      await context.close();
    } finally {
      await replica.close();
    }
  });

  it('given the maintainer proposed a change itself, when it approves that proposal in the console, then four eyes refuses and nothing changes', async () => {
    const maintainerAgent = await connectAgent(MAINTAINER);
    await callTool(maintainerAgent, 'advance_stage', advance(widgetsRequest));
    await maintainerAgent.close();
    const { context, page } = await signIn(MAINTAINER);
    await page.goto(`/console/requests/${widgetsRequest}`);
    const response = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Approve proposed → accepted' }).click();
    expect((await response).status()).toBeGreaterThanOrEqual(400);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/approv|propos/i);
    const now = await callTool(agent, 'get_request', { request_id: widgetsRequest });
    expect((now.request as { stage: string }).stage).toBe('proposed');
    await context.close();
  });

  it('given a token granted only the widgets product, when it uses the console, then it sees exactly its grant and may not decide', async () => {
    const { context, page } = await signIn(WIDGETS);
    await expect.poll(() => page.locator(`[data-request="${widgetsRequest}"]`).count()).toBe(1);
    expect(await page.locator(`[data-request="${coreRequest}"]`).count()).toBe(0);
    expect(await page.getByText('1 request.').count()).toBe(1);
    // Out of its grant looks exactly like absent, as over MCP.
    const hidden = await page.goto(`/console/requests/${coreRequest}`);
    const missing = await page.goto('/console/requests/req-2099-9999');
    expect(hidden?.status()).toBe(404);
    expect(missing?.status()).toBe(404);
    await page.goto(`/console/requests/${widgetsRequest}`);
    expect(await page.getByRole('button', { name: /Approve/ }).count()).toBe(0);
    expect(await page.getByText('Deciding needs a maintainer login').count()).toBe(1);
    expect((await page.goto('/console/audit'))?.status()).toBe(403);
    await context.close();
  });

  it('given a signed-in maintainer, when an action comes without login, with a forged CSRF token or from another origin, then it is refused and nothing is appended', async () => {
    const { context, page } = await signIn(MAINTAINER);
    await page.goto(`/console/requests/${widgetsRequest}`);
    const pending = (await callTool(agent, 'get_request', { request_id: widgetsRequest }))
      .request as { pendingProposal: { proposalId: string }; version: number };
    const action = `${gateway.url}/console/requests/${widgetsRequest}/proposals/${pending.pendingProposal.proposalId}/reject`;
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const form = (token: string) => `csrf=${encodeURIComponent(token)}&reason=forged`;
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      origin: gateway.url,
    };
    // With the session cookie (the browser context's), but a forged token.
    const forged = await page.request.post(action, { headers, data: form(`${csrf}x`) });
    expect(forged.status()).toBe(403);
    // With the right token but from another origin (a page on another local port).
    const foreign = await page.request.post(action, {
      headers: { ...headers, origin: 'http://localhost:9' },
      data: form(csrf),
    });
    expect(foreign.status()).toBe(403);
    // Without any login.
    const anonymous = await fetch(action, { method: 'POST', headers, body: form(csrf) });
    expect(anonymous.status).toBe(401);
    const live = await fetch(`${gateway.url}/console/live`);
    expect(live.status).toBe(401);
    const after = (await callTool(agent, 'get_request', { request_id: widgetsRequest }))
      .request as { version: number; stage: string };
    expect(after.version).toBe(pending.version);
    expect(after.stage).toBe('proposed');
    // Every console answer carries the strict policy.
    const board = await fetch(`${gateway.url}/console/login`);
    expect(board.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(board.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    await context.close();
  });
  it('given an approved request, when the maintainer travels to its first event, then the page shows it as it stood and offers no decision', async () => {
    const { context, page } = await signIn(MAINTAINER);
    await page.goto(`/console/requests/${coreRequest}`);
    await page.getByRole('link', { name: 'as of here' }).first().click();
    await page.waitForURL(/as_of=/);
    await expect.poll(() => page.getByText(/^As of [0-9a-f]{16}-[0-9a-f]{16}/).count()).toBe(1);
    expect(await page.locator('.meta strong').first().textContent()).toBe('proposed');
    expect(await page.locator('.timeline li').count()).toBe(1);
    expect(await page.getByRole('button', { name: /Approve/ }).count()).toBe(0);
    await page.getByRole('link', { name: 'Back to now' }).click();
    expect(await page.locator('.meta strong').first().textContent()).toBe('accepted');
    await context.close();
  });

  it('given the shipped documentation, when the maintainer searches and opens a hit, then the page is rendered with its sections and related nodes', async () => {
    const { context, page } = await signIn(MAINTAINER);
    await page.getByRole('link', { name: 'Knowledge' }).click();
    await page.getByLabel('Search', { exact: true }).fill('event store');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=event/);
    const hits = page.locator('ol.hits > li > a');
    expect(await hits.count()).toBeGreaterThan(0);
    const title = (await hits.first().textContent()) ?? '';
    await hits.first().click();
    await page.waitForURL(/\/console\/docs\/[^?]+/);
    expect((await page.locator('#doc-title').textContent())?.trim()).toBe(title.trim());
    expect(await page.locator('.markdown').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Related' }).count()).toBe(1);
    // Markdown is rendered without raw HTML: no script or inline handler inside the page.
    expect(await page.locator('main script, main [onerror], main [onclick]').count()).toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS}/doc.png` });
    await context.close();
  });

  it('given a login that reads everything, when it opens the audit page, then it sees the digest and verification state, the read models and the filtered event log', async () => {
    const { context, page } = await signIn(MAINTAINER);
    const response = await page.goto('/console/audit');
    expect(response?.status()).toBe(200);
    expect(await page.getByRole('rowheader', { name: 'requests' }).count()).toBe(1);
    expect(await page.locator('table.log tbody tr').count()).toBeGreaterThan(3);
    await page.getByLabel('Type').fill('StageAdvanced');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=StageAdvanced/);
    const types = await page.locator('table.log tbody tr td:nth-child(4)').allTextContents();
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['StageAdvanced']));
    await context.close();
  });

  it('given each page, when inspected as a keyboard and screen-reader user would, then it has one h1, landmarks, labelled controls and a skip link first in the focus order', async () => {
    const { context, page } = await signIn(MAINTAINER);
    for (const path of [
      '/console/',
      `/console/requests/${widgetsRequest}`,
      '/console/docs?q=event+store',
      '/console/audit',
    ]) {
      await page.goto(path);
      // Plain strings, evaluated in the page: the test's own TypeScript has no DOM types.
      const report = await page.evaluate<Record<string, unknown>>(`(() => {
        const controls = [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')];
        const unlabelled = controls.filter((el) => el.tagName === 'BUTTON'
          ? el.textContent.trim() === ''
          : el.labels.length === 0 && !el.getAttribute('aria-label'));
        return {
          h1: document.querySelectorAll('h1').length,
          main: document.querySelectorAll('main').length,
          nav: document.querySelectorAll('nav').length,
          banner: document.querySelectorAll('body > header').length,
          unlabelled: unlabelled.map((el) => el.outerHTML.slice(0, 80)),
          lang: document.documentElement.lang,
        };
      })()`);
      expect(report, path).toEqual({
        h1: 1,
        main: 1,
        nav: report.nav,
        banner: 1,
        unlabelled: [],
        lang: 'en',
      });
      expect(report.nav as number, path).toBeGreaterThan(0);
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent'), path).toBe(
        'Skip to content',
      );
      await page.keyboard.press('Enter');
      expect(await page.evaluate('document.activeElement.id'), path).toBe('main');
    }
    await context.close();
  });

  it('given a fresh intake, when the maintainer rejects it with a reason, then the request is rejected by the maintainer, as the CLI would record it', async () => {
    const third = (await callTool(agent, 'request_intake', intake('Dark mode', 'core')))
      .request_id as string;
    const { context, page } = await signIn(MAINTAINER);
    await page.goto(`/console/requests/${third}`);
    await page.getByLabel(/Reason for rejecting the intake/).fill('Out of scope for core.');
    await page.getByRole('button', { name: 'Reject intake' }).click();
    await page.waitForURL(/done=intake-rejected/);
    expect(await page.locator('.meta strong').first().textContent()).toBe('rejected');
    const after = await callTool(agent, 'get_request', { request_id: third });
    expect((after.request as { stage: string }).stage).toBe('rejected');
    expect(
      (after.history as { type: string; actor: string }[]).map((e) => `${e.type} ${e.actor}`),
    ).toContain('IntakeRejected token:maintainer');
    await context.close();
  });

  it('given an open request, when the maintainer withdraws it with a reason, then RequestWithdrawn by the maintainer via local, as the CLI records it; a token without the request in its grant, or without decide, cannot', async () => {
    const open = (await callTool(agent, 'request_intake', intake('Withdraw me', 'core')))
      .request_id as string;
    await callTool(agent, 'advance_stage', advance(open));
    const before = (await callTool(agent, 'get_request', { request_id: open })).request as {
      version: number;
    };

    // Decide granted, but only for widgets: the core request is absent, and stays open.
    const outsider = await signIn(WIDGETS_MAINTAINER);
    const hidden = await outsider.page.goto(`/console/requests/${open}`);
    expect(hidden?.status()).toBe(404);
    await outsider.page.goto('/console/');
    const csrf = await outsider.page.locator('input[name="csrf"]').first().inputValue();
    const withdraw = (page: Page, requestId: string, token: string) =>
      page.request.post(`${gateway.url}/console/requests/${requestId}/withdraw`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gateway.url },
        data: `csrf=${encodeURIComponent(token)}&reason=${encodeURIComponent('Not yours.')}`,
      });
    expect((await withdraw(outsider.page, open, csrf)).status()).toBe(404);
    await outsider.context.close();
    // Reads widgets but may not decide: no withdraw form, and a crafted post is refused.
    const reader = await signIn(WIDGETS);
    await reader.page.goto(`/console/requests/${widgetsRequest}`);
    expect(await reader.page.getByRole('button', { name: 'Withdraw request' }).count()).toBe(0);
    const readerCsrf = await reader.page.locator('input[name="csrf"]').first().inputValue();
    expect((await withdraw(reader.page, widgetsRequest, readerCsrf)).status()).toBe(403);
    await reader.context.close();
    const untouched = (await callTool(agent, 'get_request', { request_id: open })).request as {
      version: number;
    };
    expect(untouched.version).toBe(before.version);

    const { context, page } = await signIn(MAINTAINER);
    await page.goto(`/console/requests/${open}`);
    await page.getByLabel(/Reason for withdrawing the request/).fill('Duplicate of another.');
    await page.getByRole('button', { name: 'Withdraw request' }).click();
    await page.waitForURL(/done=withdrawn/);
    expect(await page.locator('.meta strong').first().textContent()).toBe('withdrawn');
    expect(await page.getByRole('button', { name: 'Withdraw request' }).count()).toBe(0);
    const after = await callTool(agent, 'get_request', { request_id: open });
    expect((after.request as { stage: string }).stage).toBe('withdrawn');
    expect(JSON.stringify(after.history)).toContain(
      '"type":"RequestWithdrawn","actor":"token:maintainer"',
    );
    await context.close();
  });

  it('given the index, when a login browses it by type without a query, then it lists what resources/list gives that login, with links to the pages', async () => {
    const { context, page } = await signIn(MAINTAINER);
    await page.goto('/console/docs');
    await page.getByLabel('Type').last().selectOption('doc');
    await page.getByRole('button', { name: 'Browse' }).click();
    await page.waitForURL(/browse_type=doc/);
    const docs = page.locator('section[aria-labelledby="browse"] ul.hits a');
    expect(await docs.count()).toBeGreaterThan(0);
    await docs.first().click();
    await page.waitForURL(/\/console\/docs\/[^?]+/);
    expect(await page.locator('.markdown').count()).toBe(1);
    await context.close();
    const reader = await signIn(WIDGETS);
    await reader.page.goto('/console/docs?browse_type=request');
    const listed = await reader.page
      .locator('section[aria-labelledby="browse"] ul.hits a')
      .allTextContents();
    expect(listed).toContain('Widget colours');
    expect(listed).not.toContain('Export audit trails');
    await reader.context.close();
  });

  it('given more requests and events than one page, when the maintainer follows the pages, then plain links walk every request and older events once, in order', async () => {
    for (const title of ['Page one', 'Page two', 'Page three'])
      await callTool(agent, 'request_intake', intake(title, 'core'));
    const { context, page } = await signIn(MAINTAINER);
    const all = await callTool(agent, 'list_requests', { limit: 100 });
    const expected = (all.results as { request_id: string }[]).map((r) => r.request_id);
    expect(expected.length).toBeGreaterThan(3);
    await page.goto('/console/?limit=2');
    const seen: string[] = [];
    for (;;) {
      const ids = await page.evaluate<string[]>(
        '[...document.querySelectorAll("[data-request]")].map((card) => card.dataset.request)',
      );
      expect(ids.length).toBeLessThanOrEqual(2);
      seen.push(...ids);
      const next = page
        .getByRole('navigation', { name: 'Board pages' })
        .first()
        .getByRole('link', { name: 'Next 2 requests' });
      if ((await next.count()) === 0) break;
      await next.click();
      await page.waitForLoadState('load');
      expect(await page.getByRole('link', { name: 'First page' }).count()).toBeGreaterThan(0);
    }
    expect([...seen].sort()).toEqual([...expected].sort());

    // The event log: the second page starts strictly below the first one's last position.
    await page.goto('/console/audit?limit=10');
    const positions = () => page.locator('table.log tbody tr td:first-child').allTextContents();
    const first = await positions();
    expect(first).toHaveLength(10);
    await page.getByRole('link', { name: 'Older events' }).first().click();
    await page.waitForURL(/limit=10&before=/);
    const second = await positions();
    expect(second.length).toBeGreaterThan(0);
    expect(second[0]! < first.at(-1)!).toBe(true);
    expect(second.filter((position) => first.includes(position))).toEqual([]);
    await page.getByRole('link', { name: 'Newest events' }).first().click();
    expect(await positions()).toEqual(first);
    await context.close();
  });
});

describe.skipIf(!hasChromium)('the console in a browser (local no-auth mode)', () => {
  let local: GatewayUnderTest;
  let localDb: ThrowawayDatabase;

  beforeAll(async () => {
    localDb = await createThrowawayDatabase('console_e2e_local');
    local = await startGateway(localDb.url);
  });

  afterAll(async () => {
    await local.close();
    await localDb.drop();
  });

  it('given the one-time link of the ready line, when a maintainer opens it, then they sign in once by name and the used link opens nothing', async () => {
    const link = local.consoleAnnounce.console ?? '';
    expect(link).toMatch(/\/console\/login\?code=[\w-]{20,}$/);
    const context = await browser!.newContext({ baseURL: local.url });
    const page = await context.newPage();
    await page.goto('/console/');
    expect(new URL(page.url()).pathname).toBe('/console/login');
    expect(await page.getByLabel(/Your name/).count()).toBe(0);
    await page.goto(link);
    await page.getByLabel(/Your name/).fill('alice');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/$/);
    expect(await page.getByText('Signed in as').textContent()).toContain('maintainer:alice');

    const other = await browser!.newContext({ baseURL: local.url });
    const second = await other.newPage();
    await second.goto(link);
    await second.getByLabel(/Your name/).fill('mallory');
    const refused = second.waitForResponse((r) => r.request().method() === 'POST');
    await second.getByRole('button', { name: 'Sign in' }).click();
    expect((await refused).status()).toBe(401);
    await other.close();
    await context.close();
  });
});
