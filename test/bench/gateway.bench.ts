/**
 * Gateway benchmark, over real HTTP with v1 SDK clients (2025-11-25 sessions) against gateways
 * started in this process on a throwaway server Postgres database. The clients of the timed
 * loads run on a worker thread of their own (`gateway-clients.worker.ts`), which times each
 * call: the gateways keep the main event loop to themselves, as behind a real network, but the
 * thread still shares this process and the machine's cores with both gateways, the bare
 * server and Postgres, so on a small host the clients' own CPU still counts against the rates.
 *
 * - `tools/call` p50/p99 and calls/s for `describe_schema`, `get_request` and `request_intake`
 *   at 1, 16 and 64 concurrent clients;
 * - the gateway's overhead on a trivial tool: the same one-line tool in a gateway built with
 *   `createMcpGateway({ tools: [trivial, ...ALL_TOOLS] })` (the whole `/mcp` endpoint: Host and
 *   Origin checks, auth, scope check, era routing, sessions) beside a bare v2 SDK `McpServer`
 *   with that tool behind the same Node HTTP bridge and sessionful Streamable HTTP transport;
 * - notification latency: `request_intake` on gateway A until `notifications/resources/updated`
 *   reaches a 2025-era client subscribed to `cogitave://request/` on gateway B (same database;
 *   these two clients stay on the main thread, where B's notice is timed);
 * - intake targets: at 16 clients ≥ 400 intakes/s with p99 ≤ 100 ms, at 1 client p50 ≤ 10 ms
 *   (beside `get_request` in the same run); after the load, every answered intake has exactly
 *   one `RequestProposed` and the ids run gap-free; one intake command sent 8 times at once
 *   with the same command id, half through each gateway, gets one id and one request.
 *
 *   npx tsx test/bench/gateway.bench.ts
 *
 * Environment: BENCH_SECONDS (timed seconds per configuration, default 3), BENCH_DATABASE_URL
 * (admin connection to create the throwaway database from, default the local `postgres`),
 * BENCH_NOTIFICATIONS (proposals timed for notification latency, default 100), BENCH_PARTS
 * (comma list of `overhead`, `tools`, `notify`; default all three).
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createTokenAuth } from '../../mcp-gateway/auth/tokens.js';
import { createGatewayServices } from '../../bin/gateway-services.js';
import { createMcpEndpoint } from '../../mcp-gateway/http/mcp-endpoint.js';
import { sendWebResponse, toWebRequest } from '../../mcp-gateway/http/node-bridge.js';
import {
  httpSettingsFromConfig,
  startHttpServer,
  type RunningHttpServer,
} from '../../mcp-gateway/http/server.js';
import { defineTool } from '../../mcp-gateway/registry.js';
import { createMcpGateway } from '../../mcp-gateway/server/factory.js';
import { ALL_TOOLS } from '../../mcp-gateway/tools/index.js';
import { ingestCorpus } from '../../services/catalog/ingest.js';
import { defaultCorpusDir } from '../../services/catalog/start-up.js';
import { createApp, type App } from '../../bin/app.js';
import { loadConfig } from '../../services/runtime/config.js';
import { createLogger } from '../../services/runtime/logger.js';
import type { GatewayServices } from '../../mcp-gateway/services.js';
import { requestStreamId } from '../../services/requests/events.js';
import { startModuleWorker } from '../../services/threads/module-worker.js';
import { createThrowawayDatabase } from '../support/postgres.js';
import { recordFigures, type BenchFigure } from './figures.js';
import {
  intakeArgs,
  type ClientReply,
  type ClientRequest,
  type RunReply,
  type Workload,
} from './gateway-clients.worker.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? '3');
const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS ?? '100');
const CONCURRENCY = [1, 16, 64] as const;
const OVERHEAD_TARGET = 1.2;
const NOTIFY_P99_TARGET_MS = 100;
const INTAKE_TARGETS = { clients: 16, perSecond: 400, p99Ms: 100, singleP50Ms: 10 } as const;
const BENCH = 'bench:gateway';
const PARTS = new Set((process.env.BENCH_PARTS ?? 'overhead,tools,notify').split(','));
if (process.env.BENCH_DATABASE_URL !== undefined)
  process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;

const logger = createLogger('silent');

const TRIVIAL = 'bench_echo';
const trivialInput = z.object({ text: z.string() });
const trivialOutput = z.object({ text: z.string() });
const trivialTool = defineTool({
  name: TRIVIAL,
  title: 'Echo',
  description: 'Returns its text (benchmark only).',
  input: trivialInput,
  output: trivialOutput,
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  access: 'read',
  handler: (args) => Promise.resolve({ text: args.text }),
  render: (result) => result.text,
});

// ---------------------------------------------------------------------------------------------
// Servers

interface Running {
  readonly mcpUrl: string;
  readonly app?: App;
  readonly services?: GatewayServices;
  close(): Promise<void>;
}

const startGateway = async (databaseUrl: string): Promise<Running> => {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    COGITAVE_HTTP_PORT: '0',
    CATALOG_DIR: 'none',
    COGITAVE_DB_POOL_SIZE: '16',
  });
  const app = await createApp(config, logger);
  const composed = await createGatewayServices(app);
  const gateway = createMcpGateway({
    tools: [trivialTool, ...ALL_TOOLS],
    services: composed.services,
    logger,
    version: '0.0.0-bench',
  });
  const endpoint = createMcpEndpoint({
    gateway,
    services: composed.services,
    auth: createTokenAuth({}),
    logger,
  });
  const http = await startHttpServer({
    ...httpSettingsFromConfig(config),
    logger,
    readiness: [],
    routes: endpoint.routes,
  });
  app.projections.start();
  await app.changes.ready();
  return {
    mcpUrl: `${http.url}/mcp`,
    app,
    services: composed.services,
    close: async () => {
      await endpoint.close();
      await http.close();
      await composed.close();
      await app.close();
    },
  };
};

/** The floor: the SDK's McpServer with the trivial tool, sessionful, same Node bridge. */
const startBare = async (): Promise<Running> => {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const open = async (): Promise<WebStandardStreamableHTTPServerTransport> => {
    const server = new McpServer({ name: 'bare', version: '1.0.0' });
    server.registerTool(
      TRIVIAL,
      { description: 'Returns its text.', inputSchema: trivialInput, outputSchema: trivialOutput },
      ({ text }) => ({ content: [{ type: 'text', text }], structuredContent: { text } }),
    );
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
    await server.connect(transport);
    return transport;
  };
  const http: RunningHttpServer = await startHttpServer({
    ...httpSettingsFromConfig(loadConfig({ COGITAVE_HTTP_PORT: '0' })),
    logger,
    readiness: [],
    routes: [
      {
        path: '/mcp',
        methods: ['GET', 'POST', 'DELETE'],
        maxBodyBytes: 4 * 1024 * 1024,
        handle: async (req, res, context) => {
          const body = req.method === 'POST' ? await context.readBody() : undefined;
          const request = toWebRequest(req, res, body, context.urls.local);
          const id = request.headers.get('mcp-session-id');
          const transport = id === null ? await open() : sessions.get(id);
          const response = transport
            ? await transport.handleRequest(request)
            : new Response('unknown session', { status: 404 });
          await sendWebResponse(res, response);
        },
      },
    ],
  });
  return {
    mcpUrl: `${http.url}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      await http.close();
    },
  };
};

// ---------------------------------------------------------------------------------------------
// Load

const connect = async (url: string): Promise<Client> => {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
};

interface Measured {
  readonly callsPerSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly calls: number;
  readonly errors: number;
  /** Process CPU (clients and servers) per call, in ms: steadier than calls/s on a busy host. */
  readonly cpuMsPerCall: number;
}

interface Raw {
  readonly latencies: number[];
  seconds: number;
  cpuMicros: number;
  errors: number;
}

/** Answers without isError, per tool, warm-up calls included: what the log must then hold. */
const answered = new Map<string, number>();

const quantile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN);

const newRaw = (): Raw => ({ latencies: [], seconds: 0, cpuMicros: 0, errors: 0 });

/** The client thread: requests answered one at a time, in order. */
interface ClientThread {
  request(request: ClientRequest): Promise<ClientReply>;
  close(): Promise<void>;
}

const startClientThread = (): ClientThread => {
  const thread = startModuleWorker(import.meta.url, 'gateway-clients.worker', undefined);
  const waiting: { resolve: (reply: ClientReply) => void; reject: (error: Error) => void }[] = [];
  thread.on('message', (reply: ClientReply) => {
    const next = waiting.shift();
    if (reply.type === 'error') next?.reject(new Error(`bench client thread: ${reply.message}`));
    else next?.resolve(reply);
  });
  thread.on('error', (error) => {
    for (const next of waiting.splice(0)) next.reject(error);
  });
  return {
    request: (request) =>
      new Promise<ClientReply>((resolve, reject) => {
        waiting.push({ resolve, reject });
        thread.postMessage(request);
      }),
    close: async () => {
      await thread.terminate();
    },
  };
};

/** Runs `clients` of `pool` in closed loops for `seconds` on the client thread, adding to `raw`. */
const runInto = async (
  thread: ClientThread,
  raw: Raw,
  pool: string,
  clients: number,
  name: string,
  workload: Workload,
  seconds: number,
): Promise<void> => {
  const cpu = process.cpuUsage();
  const reply = await thread.request({ type: 'run', pool, clients, name, workload, seconds });
  if (reply.type !== 'run') throw new Error(`unexpected reply ${reply.type}`);
  const run: RunReply = reply;
  for (const latency of run.latencies) raw.latencies.push(latency);
  raw.seconds += run.seconds;
  raw.errors += run.errors;
  answered.set(name, (answered.get(name) ?? 0) + run.answered);
  const used = process.cpuUsage(cpu);
  raw.cpuMicros += used.user + used.system;
};

const summarise = (raw: Raw): Measured => {
  const sorted = [...raw.latencies].sort((a, b) => a - b);
  return {
    callsPerSec: sorted.length / raw.seconds,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    calls: sorted.length,
    errors: raw.errors,
    cpuMsPerCall: raw.cpuMicros / 1000 / Math.max(1, sorted.length),
  };
};

const measure = async (
  thread: ClientThread,
  pool: string,
  clients: number,
  name: string,
  workload: Workload,
  seconds: number,
): Promise<Measured> => {
  const raw = newRaw();
  await runInto(thread, raw, pool, clients, name, workload, seconds);
  return summarise(raw);
};

/** Bare and gateway in alternating slices, so a change in the host's load hits both alike. */
const SLICES = 4;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

/**
 * Whether the log holds exactly one RequestProposed per answered intake, with distinct ids
 * whose numbers run 1..n within each year.
 */
const checkIntakeLog = async (
  app: App,
  expected: number,
): Promise<{ readonly ok: boolean; readonly text: string }> => {
  const { rows } = await app.database.pool.query<{ stream_id: string }>(
    "SELECT stream_id FROM event_store.events WHERE event_type = 'RequestProposed'",
  );
  const ids = rows.map((row) => row.stream_id);
  const byYear = new Map<string, number[]>();
  for (const id of ids) {
    const match = /^request-req-(\d{4})-(\d+)$/.exec(id);
    if (!match?.[1] || !match[2]) continue;
    byYear.set(match[1], [...(byYear.get(match[1]) ?? []), Number(match[2])]);
  }
  const gapFree = [...byYear.values()].every((numbers) =>
    [...numbers].sort((x, y) => x - y).every((n, i) => n === i + 1),
  );
  const distinct = new Set(ids).size === ids.length;
  const ok = ids.length === expected && distinct && gapFree;
  return {
    ok,
    text: `${String(ids.length)} RequestProposed for ${String(expected)} answered intakes; ids ${distinct ? 'distinct' : 'REPEATED'}, ${gapFree ? 'gap-free' : 'WITH GAPS'}`,
  };
};

/** One intake command sent `times` at once with one command id, alternating gateways. */
const checkRetriedIntake = async (
  gateways: readonly GatewayServices[],
  eventStore: App['eventStore'],
  times: number,
): Promise<{ readonly ok: boolean; readonly text: string }> => {
  const meta = {
    commandId: randomUUID(),
    actor: 'system:bench-retry',
    at: new Date().toISOString(),
  };
  const form = {
    title: 'Bench retried intake',
    problem: 'A client retried its intake call after a timeout and must not get a second request.',
    product: 'bench',
    requester: 'bench-team',
    acceptanceCriteria: ['A retried intake has one id'],
  };
  const results = await Promise.all(
    Array.from({ length: times }, (_, i) =>
      gateways[i % gateways.length]!.requests.proposeIntake(form, meta),
    ),
  );
  const ids = new Set(results.map((result) => result.requestId));
  const [id] = ids;
  const stored =
    id === undefined
      ? []
      : (await eventStore.readStream(requestStreamId(id))).filter(
          (event) => event.type === 'RequestProposed',
        );
  const ok = ids.size === 1 && stored.length === 1;
  return {
    ok,
    text: `${String(times)} sends of one command: ${String(ids.size)} id(s), ${String(stored.length)} RequestProposed`,
  };
};

/** Resolves once every read model (on whichever app leads it) has applied the whole log. */
const settle = async (apps: readonly (App | undefined)[]): Promise<void> => {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const statuses = apps.flatMap((app) => app?.projections.status() ?? []);
    const names = [...new Set(statuses.map((status) => status.name))];
    const done = names.every((name) =>
      statuses.some(
        (status) =>
          status.name === name &&
          status.leader &&
          status.state === 'caught_up' &&
          status.lagEvents === 0,
      ),
    );
    if (done) break;
    if (Date.now() > deadline) throw new Error('read models did not catch up within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, 2000));
};

/** The intake targets, each beside the same run's `get_request`, and the log checks. */
const intakeTargets = async (
  runs: ReadonlyMap<string, Measured>,
  a: Running,
  b: Running,
  figures: BenchFigure[],
): Promise<string[]> => {
  const { clients, perSecond, p99Ms, singleP50Ms } = INTAKE_TARGETS;
  const many = runs.get(`request_intake@${String(clients)}`);
  const one = runs.get('request_intake@1');
  const readMany = runs.get(`get_request@${String(clients)}`);
  const readOne = runs.get('get_request@1');
  if (!many || !one || !readMany || !readOne || !a.app || !a.services || !b.services) {
    throw new Error('the intake targets need the tools part at 1 and 16 clients');
  }
  const log = await checkIntakeLog(a.app, 1 + (answered.get('request_intake') ?? 0));
  const retried = await checkRetriedIntake([a.services, b.services], a.app.eventStore, 8);
  figures.push(
    {
      bench: BENCH,
      figure: `request_intake throughput, ${String(clients)} clients (p50 ${fmt(many.p50)} ms)`,
      value: many.callsPerSec,
      unit: 'calls/s',
      baseline: { name: `get_request, ${String(clients)} clients`, value: readMany.callsPerSec },
      ratio: many.callsPerSec / readMany.callsPerSec,
      target: `≥ ${String(perSecond)} calls/s`,
      met: many.callsPerSec >= perSecond,
    },
    {
      bench: BENCH,
      figure: `request_intake p99, ${String(clients)} clients`,
      value: many.p99,
      unit: 'ms',
      baseline: { name: `get_request p99, ${String(clients)} clients`, value: readMany.p99 },
      target: `≤ ${String(p99Ms)} ms`,
      met: many.p99 <= p99Ms,
    },
    {
      bench: BENCH,
      figure: `request_intake p50, 1 client (p99 ${fmt(one.p99)} ms)`,
      value: one.p50,
      unit: 'ms',
      baseline: { name: 'get_request p50, 1 client', value: readOne.p50 },
      target: `≤ ${String(singleP50Ms)} ms`,
      met: one.p50 <= singleP50Ms,
    },
    {
      bench: BENCH,
      figure: `intakes after the load: ${log.text}`,
      value: 1 + (answered.get('request_intake') ?? 0),
      unit: 'intakes',
      target: 'one request each, gap-free',
      met: log.ok,
    },
    {
      bench: BENCH,
      figure: `retried intake (same command id, both gateways at once): ${retried.text}`,
      value: 8,
      unit: 'sends',
      target: 'one id, one request',
      met: retried.ok,
    },
  );
  const verdict = (met: boolean): string => (met ? 'met' : '**not met**');
  return [
    '',
    '## request_intake targets (same run)',
    '',
    '| figure | result | target | baseline (same run) | verdict |',
    '| --- | --- | --- | --- | --- |',
    `| ${String(clients)} clients, calls/s | ${fmt(many.callsPerSec)} | ≥ ${String(perSecond)} | get_request ${fmt(readMany.callsPerSec)} | ${verdict(many.callsPerSec >= perSecond)} |`,
    `| ${String(clients)} clients, p99 ms | ${fmt(many.p99)} | ≤ ${String(p99Ms)} | get_request ${fmt(readMany.p99)} | ${verdict(many.p99 <= p99Ms)} |`,
    `| 1 client, p50 ms | ${fmt(one.p50)} | ≤ ${String(singleP50Ms)} | get_request ${fmt(readOne.p50)} | ${verdict(one.p50 <= singleP50Ms)} |`,
    `| log after the load | ${log.text} | one each, gap-free | | ${verdict(log.ok)} |`,
    `| retried command id | ${retried.text} | one id, one request | | ${verdict(retried.ok)} |`,
  ];
};

// ---------------------------------------------------------------------------------------------

const main = async (): Promise<number> => {
  if (!Number.isFinite(SECONDS) || SECONDS <= 0) {
    process.stderr.write(`BENCH_SECONDS must be a positive number (got ${String(SECONDS)})\n`);
    return 2;
  }
  const db = await createThrowawayDatabase('bench_gateway');
  const servers: Running[] = [];
  const closers: (() => Promise<void>)[] = [];
  const figures: BenchFigure[] = [];
  const lines: string[] = [];
  try {
    const a = await startGateway(db.url);
    servers.push(a);
    const b = await startGateway(db.url);
    servers.push(b);
    const bare = await startBare();
    servers.push(bare);
    if (!a.app) throw new Error('gateway A has no app');
    const report = await ingestCorpus(a.app.eventStore, {
      dir: defaultCorpusDir(),
      checkSamples: false,
      meta: { commandId: randomUUID(), actor: 'system:bench', at: new Date().toISOString() },
    });
    if (report.errors.length > 0)
      throw new Error(`corpus refused: ${JSON.stringify(report.errors)}`);

    const maxClients = Math.max(...CONCURRENCY);
    const thread = startClientThread();
    closers.push(() => thread.close());
    await thread.request({ type: 'connect', pool: 'gateway', url: a.mcpUrl, count: maxClients });
    await thread.request({ type: 'connect', pool: 'bare', url: bare.mcpUrl, count: maxClients });
    const seedReply = await thread.request({
      type: 'call',
      pool: 'gateway',
      name: 'request_intake',
      workload: { kind: 'intake' },
      client: 0,
      call: -2,
    });
    const seed = seedReply.type === 'result' ? seedReply.result : undefined;
    const requestId = (seed?.structuredContent as { request_id?: string } | undefined)?.request_id;
    if (requestId === undefined) throw new Error(`request_intake failed: ${JSON.stringify(seed)}`);
    // Measure on a quiet process: the read models have applied the corpus (their catch-up and
    // the search index build would otherwise run during the first configurations).
    await settle([a.app, b.app]);

    lines.push(
      `# bench:gateway`,
      '',
      `- cpus: ${String(os.cpus().length)} × ${os.cpus()[0]?.model ?? '?'}; load average ${os
        .loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
      `- node ${process.version}; ${String(SECONDS)} s per configuration; the clients run on a worker thread, the servers on the main thread, both in this process`,
      '',
      '## Trivial tool: gateway vs bare v2 McpServer',
      '',
      `Alternating ${String(SLICES)} slices each. Overhead = bare calls/s ÷ gateway calls/s; CPU = process CPU ms per call (clients included), ratio gateway ÷ bare.`,
      '',
      '| clients | bare calls/s | bare p50 / p99 ms | bare CPU ms/call | gateway calls/s | gateway p50 / p99 ms | gateway CPU ms/call | overhead | CPU ratio |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    const echo: Workload = { kind: 'echo' };
    for (const clients of PARTS.has('overhead') ? CONCURRENCY : []) {
      const bareRaw = newRaw();
      const oursRaw = newRaw();
      for (let slice = 0; slice < SLICES; slice += 1) {
        await runInto(thread, bareRaw, 'bare', clients, TRIVIAL, echo, SECONDS / SLICES);
        await runInto(thread, oursRaw, 'gateway', clients, TRIVIAL, echo, SECONDS / SLICES);
      }
      const bareRun = summarise(bareRaw);
      const ours = summarise(oursRaw);
      const overhead = bareRun.callsPerSec / ours.callsPerSec;
      const cpuOverhead = ours.cpuMsPerCall / bareRun.cpuMsPerCall;
      lines.push(
        `| ${String(clients)} | ${fmt(bareRun.callsPerSec)} | ${fmt(bareRun.p50)} / ${fmt(bareRun.p99)} | ${fmt(bareRun.cpuMsPerCall)} | ${fmt(ours.callsPerSec)} | ${fmt(ours.p50)} / ${fmt(ours.p99)} | ${fmt(ours.cpuMsPerCall)} | ${overhead.toFixed(2)}× | ${cpuOverhead.toFixed(2)}× |`,
      );
      figures.push({
        bench: BENCH,
        figure: `trivial tool overhead, ${String(clients)} client(s) (bare calls/s ÷ gateway calls/s; CPU/call ratio ${cpuOverhead.toFixed(2)}×)`,
        value: ours.callsPerSec,
        unit: 'calls/s',
        baseline: { name: 'bare v2 McpServer', value: bareRun.callsPerSec },
        ratio: overhead,
        target: `≤ ${String(OVERHEAD_TARGET)}×`,
        met: overhead <= OVERHEAD_TARGET,
      });
    }

    lines.push(
      '',
      '## tools/call through the gateway',
      '',
      '| tool | clients | calls/s | p50 ms | p99 ms | calls | isError |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    );
    const runs = new Map<string, Measured>();
    const workloads: [string, Workload][] = [
      ['describe_schema', { kind: 'empty' }],
      ['get_request', { kind: 'get_request', requestId }],
      ['request_intake', { kind: 'intake' }],
    ];
    for (const [tool, workload] of PARTS.has('tools') ? workloads : []) {
      for (const clients of CONCURRENCY) {
        const run = await measure(thread, 'gateway', clients, tool, workload, SECONDS);
        runs.set(`${tool}@${String(clients)}`, run);
        lines.push(
          `| ${tool} | ${String(clients)} | ${fmt(run.callsPerSec)} | ${fmt(run.p50)} | ${fmt(run.p99)} | ${String(run.calls)} | ${String(run.errors)} |`,
        );
        figures.push({
          bench: BENCH,
          figure: `${tool}, ${String(clients)} client(s), p50 ${fmt(run.p50)} ms, p99 ${fmt(run.p99)} ms`,
          value: run.callsPerSec,
          unit: 'calls/s',
        });
      }
    }
    await thread.request({ type: 'close' });
    if (PARTS.has('tools')) lines.push(...(await intakeTargets(runs, a, b, figures)));

    // Notification latency: propose on A, hear it on B.
    if (!PARTS.has('notify')) {
      process.stdout.write(`${lines.join('\n')}\n`);
      recordFigures(figures);
      return 0;
    }
    const proposer = await connect(a.mcpUrl);
    const listener = await connect(b.mcpUrl);
    // Wall-clock milliseconds, comparable with the database's clock on this host.
    const wallNow = (): number => performance.timeOrigin + performance.now();
    const heard = new Map<string, number>();
    listener.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      heard.set(notification.params.uri, wallNow());
    });
    await listener.subscribeResource({ uri: 'cogitave://request/' });
    // When B's change feed hears of each URI: splits the latency into the read model and
    // Postgres (append → notice at B) and the gateway (notice → client).
    const noticed = new Map<string, number>();
    if (!b.app) throw new Error('gateway B has no app');
    const stopNoticing = b.app.changes.onChange((signal) => {
      if (signal.kind !== 'change') return;
      for (const uri of signal.notice.uris) if (!noticed.has(uri)) noticed.set(uri, wallNow());
    });
    const toNotice: number[] = [];
    const noticeToClient: number[] = [];
    const pool = a.app.database.pool;
    const fromSend: number[] = [];
    const fromAppend: number[] = [];
    let missed = 0;
    for (let i = 0; i < NOTIFICATIONS; i += 1) {
      const sent = wallNow();
      const result = await proposer.callTool({
        name: 'request_intake',
        arguments: intakeArgs(999, i),
      });
      const id = (result.structuredContent as { request_id?: string } | undefined)?.request_id;
      if (id === undefined) throw new Error(`request_intake failed: ${JSON.stringify(result)}`);
      const uri = `cogitave://request/${id}`;
      const deadline = wallNow() + 5000;
      while (!heard.has(uri) && wallNow() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 1));
      const at = heard.get(uri);
      if (at === undefined) {
        missed += 1;
        continue;
      }
      // The proposal's append, by the store's clock (statement start of the INSERT).
      const { rows } = await pool.query<{ at: number }>(
        `SELECT extract(epoch FROM recorded_at)::float8 * 1000 AS at FROM event_store.events
          WHERE stream_id = $1 ORDER BY stream_revision LIMIT 1`,
        [`request-${id}`],
      );
      const appended = rows[0]?.at;
      if (appended === undefined) throw new Error(`no event on request-${id}`);
      fromSend.push(at - sent);
      fromAppend.push(at - appended);
      const notice = noticed.get(uri);
      if (notice !== undefined) {
        toNotice.push(notice - appended);
        noticeToClient.push(at - notice);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    stopNoticing();
    await proposer.close();
    await listener.close();
    for (const series of [fromSend, fromAppend, toNotice, noticeToClient])
      series.sort((x, y) => x - y);
    const p99 = quantile(fromAppend, 0.99);
    lines.push(
      '',
      '## Notification latency: request_intake on gateway A → resources/updated on gateway B',
      '',
      'A v1 (2025-11-25) session on B subscribed to `cogitave://request/`; one proposal at a time on A.',
      '',
      '| measured from | p50 ms | p99 ms | samples | missed (5 s) |',
      '| --- | --- | --- | --- | --- |',
      `| the proposal's append on A (store clock) | ${fmt(quantile(fromAppend, 0.5))} | ${fmt(p99)} | ${String(fromAppend.length)} | ${String(missed)} |`,
      `| the call sent to A | ${fmt(quantile(fromSend, 0.5))} | ${fmt(quantile(fromSend, 0.99))} | ${String(fromSend.length)} | ${String(missed)} |`,
      '',
      '| part | p50 ms | p99 ms |',
      '| --- | --- | --- |',
      `| append → change notice at B (read model, Postgres NOTIFY) | ${fmt(quantile(toNotice, 0.5))} | ${fmt(quantile(toNotice, 0.99))} |`,
      `| change notice at B → client (gateway, SSE) | ${fmt(quantile(noticeToClient, 0.5))} | ${fmt(quantile(noticeToClient, 0.99))} |`,
    );
    figures.push({
      bench: BENCH,
      figure: `notification latency p99, proposal appended on A → resources/updated on B (p50 ${fmt(quantile(fromAppend, 0.5))} ms)`,
      value: p99,
      unit: 'ms',
      target: `p99 ≤ ${String(NOTIFY_P99_TARGET_MS)} ms`,
      met: missed === 0 && p99 <= NOTIFY_P99_TARGET_MS,
    });
  } finally {
    for (const close of closers) await close().catch(() => undefined);
    for (const server of servers.reverse()) await server.close().catch(() => undefined);
    await db.drop();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  recordFigures(figures);
  return 0;
};

process.exitCode = await main();
