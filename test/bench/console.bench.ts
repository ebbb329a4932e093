/**
 * Console benchmark: the requests board with BENCH_REQUESTS (default 1,000) requests, on a
 * gateway started in this process on a throwaway server Postgres database.
 *
 * - server render: `GET /console/` (all requests, grouped by stage) p50/p95 and bytes, against a
 *   same-run baseline: the `list_requests` pages the board is made of, called over MCP by the
 *   v1 SDK client (the data alone, without the HTML);
 * - first render in a browser: Chromium's first-contentful-paint of the board (median of
 *   BENCH_RUNS loads), when Debian's chromium is installed;
 * - bytes shipped: the page, the stylesheet and the script.
 *
 *   npx tsx test/bench/console.bench.ts
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chromium } from 'playwright-core';
import { createRequestCommandHandlers } from '../../services/requests/handlers.js';
import { startGateway, tokenTable, waitForProjections } from '../e2e/gateway/support.js';
import { createThrowawayDatabase } from '../support/postgres.js';
import { recordFigures } from './figures.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? '1000');
const RUNS = Number(process.env.BENCH_RUNS ?? '20');
const BENCH = 'bench:console';
const TOKEN = 'bench-console-token-3c9d';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
const PRODUCTS = ['core', 'widgets', 'billing', 'search'];

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await run();
  return performance.now() - start;
};

const db = await createThrowawayDatabase('bench_console');
const gateway = await startGateway(db.url, {
  MCP_TOKENS: tokenTable({ [TOKEN]: { name: 'bench', grants: {} } }),
  COGITAVE_DB_POOL_SIZE: '8',
});
try {
  const handlers = createRequestCommandHandlers({ eventStore: gateway.app.eventStore });
  const seedStart = performance.now();
  for (let i = 0; i < REQUESTS; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, REQUESTS - i) }, (_, k) =>
        handlers.proposeIntake(
          {
            title: `Request number ${String(i + k)} for the board`,
            problem: 'Maintainers cannot see which requests wait on whom without opening each one.',
            product: PRODUCTS[(i + k) % PRODUCTS.length] ?? 'core',
            requester: `team-${String((i + k) % 7)}`,
            acceptanceCriteria: ['The board lists 1000 requests within 500 ms'],
          },
          { commandId: randomUUID(), actor: 'system:bench', at: new Date().toISOString() },
        ),
      ),
    );
  }
  await waitForProjections([gateway.app], 120_000);
  const seedSeconds = (performance.now() - seedStart) / 1000;

  // A console login, as a browser makes it.
  const login = await fetch(`${gateway.url}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gateway.url },
    body: `token=${TOKEN}`,
  });
  const cookie = /cogitave_console=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
  if (cookie === undefined) throw new Error(`console login failed: ${String(login.status)}`);

  const board = async (): Promise<number> => {
    const response = await fetch(`${gateway.url}/console/`, { headers: { cookie } });
    const body = await response.text();
    const listed = /<p class="count">\s*(\d+)\s*request/.exec(body)?.[1];
    if (!response.ok || listed !== String(REQUESTS))
      throw new Error(
        `the board did not list ${String(REQUESTS)} requests: ${String(response.status)} ${/<p class="count">[^<]*|role="alert">[^<]*/.exec(body)?.[0] ?? body.slice(0, 200)}`,
      );
    return Buffer.byteLength(body);
  };
  // The projector's lag figure can trail the last appends: wait until the board shows them all.
  const settled = Date.now() + 60_000;
  for (;;) {
    const attempt = await board().catch((error: unknown) => error);
    if (typeof attempt === 'number' || Date.now() > settled) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const pageBytes = await board();
  const serverMs: number[] = [];
  for (let i = 0; i < RUNS; i += 1) serverMs.push(await timed(board));

  const client = new Client({ name: 'bench-console', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  const listAll = async (): Promise<void> => {
    let cursor: string | null = null;
    do {
      const result = await client.callTool({
        name: 'list_requests',
        arguments: { limit: 100, ...(cursor === null ? {} : { cursor }) },
      });
      cursor = (result.structuredContent as { next_cursor: string | null }).next_cursor;
    } while (cursor !== null);
  };
  await listAll();
  const baselineMs: number[] = [];
  for (let i = 0; i < RUNS; i += 1) baselineMs.push(await timed(listAll));
  await client.close();

  const assets = await Promise.all(
    ['console.css', 'console.js'].map(async (name) => {
      const response = await fetch(`${gateway.url}/console/assets/${name}`);
      return [name, (await response.arrayBuffer()).byteLength] as const;
    }),
  );

  let paintMs: number[] = [];
  if (existsSync(CHROMIUM)) {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext();
    const [name, value] = cookie.split('=');
    await context.addCookies([
      { name: name ?? '', value: value ?? '', url: `${gateway.url}/console/` },
    ]);
    const page = await context.newPage();
    for (let i = 0; i < Math.min(RUNS, 10); i += 1) {
      await page.goto(`${gateway.url}/console/`, { waitUntil: 'load' });
      const paint = await page.evaluate(
        'performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null',
      );
      if (typeof paint === 'number') paintMs.push(paint);
    }
    await browser.close();
  } else {
    console.warn(`no Chromium at ${CHROMIUM}: the browser figure is left out`);
    paintMs = [];
  }

  const p50 = percentile(serverMs, 50);
  const base50 = percentile(baselineMs, 50);
  const lines = [
    `## ${BENCH}: the board with ${String(REQUESTS)} requests`,
    '',
    `seeded in ${seedSeconds.toFixed(1)} s; ${String(RUNS)} timed loads each`,
    '',
    '| figure | p50 | p95 |',
    '| --- | ---: | ---: |',
    `| GET /console/ (server render, ${String(pageBytes)} bytes) | ${p50.toFixed(1)} ms | ${percentile(serverMs, 95).toFixed(1)} ms |`,
    `| baseline: the same list_requests pages over MCP | ${base50.toFixed(1)} ms | ${percentile(baselineMs, 95).toFixed(1)} ms |`,
    ...(paintMs.length > 0
      ? [
          `| Chromium first contentful paint of the board | ${percentile(paintMs, 50).toFixed(0)} ms | ${percentile(paintMs, 95).toFixed(0)} ms |`,
        ]
      : []),
    '',
    `render ÷ baseline at p50: ${(p50 / base50).toFixed(2)}×; assets: ${assets.map(([n, b]) => `${n} ${String(b)} bytes`).join(', ')}`,
  ];
  console.log(lines.join('\n'));
  recordFigures([
    {
      bench: BENCH,
      figure: `board with ${String(REQUESTS)} requests, server render p50 (ratio: render/list_requests pages over MCP)`,
      value: p50,
      unit: 'ms',
      baseline: { name: 'list_requests pages over MCP', value: base50 },
      ratio: p50 / base50,
    },
    ...(paintMs.length > 0
      ? [
          {
            bench: BENCH,
            figure: `board with ${String(REQUESTS)} requests, Chromium first contentful paint p50`,
            value: percentile(paintMs, 50),
            unit: 'ms',
          },
        ]
      : []),
  ]);
} finally {
  await gateway.close();
  await db.drop();
}
