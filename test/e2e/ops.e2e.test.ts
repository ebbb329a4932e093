import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../services/database/database.js';
import { migrate } from '../../services/database/migrate.js';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '../../services/event-store/postgres/adapter.js';
import { comparePositions } from '../../services/event-store/position.js';
import type { Position } from '../../services/event-store/types.js';
import type { RequestCommandHandlers } from '../../services/requests/commands.js';
import { requestStreamId } from '../../services/requests/events.js';
import { createRequestCommandHandlers } from '../../services/requests/handlers.js';
import { PROJECTIONS } from '../../bin/read-models.js';
import { createLogger } from '../../services/runtime/logger.js';
import { cliEnv, spawnCli, stopCli, type RunningCli } from '../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';

/**
 * The ops endpoints of `cogitave serve` with its read models running: /readyz lists each
 * projection's progress and turns 503 when one stops on an event it cannot apply; /metrics
 * is Prometheus text with the projections' lag and counters and the process basics.
 * Request events are appended through the real command handlers: from outside the process on
 * server Postgres, before it starts on PGlite (one process per data dir).
 */
const READY_TIMEOUT_MS = 90_000;
const CATCH_UP_TIMEOUT_MS = 30_000;
const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const silentLogger = createLogger('silent');

// ---------------------------------------------------------------------------------------------
// The writer: a store and the request command handlers in this process

interface Writer {
  readonly store: PostgresEventStore;
  readonly handlers: RequestCommandHandlers;
  close(): Promise<void>;
}

const openWriter = async (
  where: { databaseUrl: string } | { dataDir: string },
  migrateFirst: boolean,
): Promise<Writer> => {
  const database: Database = await openDatabase({
    databaseUrl: 'databaseUrl' in where ? where.databaseUrl : undefined,
    dataDir: 'dataDir' in where ? where.dataDir : 'memory://',
    poolSize: 2,
    logger: silentLogger,
  });
  if (migrateFirst) await migrate(database.pool, [eventStoreMigrations], silentLogger);
  const store = createPostgresEventStore({ database, logger: silentLogger });
  return {
    store,
    handlers: createRequestCommandHandlers({ eventStore: store }),
    close: async () => {
      await store.close();
      await database.close();
    },
  };
};

const meta = () => ({
  commandId: randomUUID(),
  actor: 'agent:ops-test',
  at: new Date().toISOString(),
});

/** `count` intakes, then a stage proposal on the first: two event types on several streams. */
const proposeRequests = async (
  handlers: RequestCommandHandlers,
  count: number,
): Promise<string[]> => {
  const ids: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    const { requestId } = await handlers.proposeIntake(
      {
        title: `Export the audit log, batch ${n}`,
        problem: `Auditors copy rows by hand (batch ${n}).`,
        product: 'mcp-gateway',
        requester: 'ada',
        acceptanceCriteria: ['Every audit event of the month is exported'],
        priority: 'high',
      },
      meta(),
    );
    ids.push(requestId);
  }
  await handlers.proposeStageAdvance(
    {
      requestId: ids[0]!,
      toStage: 'accepted',
      evidence: { notes: 'triaged' },
      rationale: 'The intake meets the Definition of Done of proposed.',
    },
    meta(),
  );
  return ids;
};

/**
 * What the requests projection must apply for these requests: their events, up to the newest.
 * Read by stream: a read of the global log shows an event only once every older transaction
 * of the cluster has ended, which other work on a shared server can delay.
 */
const requestLog = async (
  store: PostgresEventStore,
  requestIds: readonly string[],
): Promise<{ count: number; position: Position }> => {
  const events = (
    await Promise.all(requestIds.map((id) => store.readStream(requestStreamId(id))))
  ).flat();
  const newest = events
    .map((event) => event.position)
    .sort(comparePositions)
    .at(-1);
  if (newest === undefined) throw new Error('no request events were appended');
  return { count: events.length, position: newest };
};

// ---------------------------------------------------------------------------------------------
// The server process and its endpoints

interface ProjectionReport {
  readonly name: string;
  readonly state: string;
  readonly leader: boolean;
  readonly position: string | null;
  readonly lagEvents: number | null;
  readonly lagSeconds: number | null;
  readonly eventsApplied: number;
  readonly error: { readonly position: string; readonly type: string } | null;
}

interface Readiness {
  readonly httpStatus: number;
  readonly status: string;
  readonly checks: readonly { name: string; ok: boolean; detail?: string }[];
  readonly projections: readonly ProjectionReport[];
}

const readiness = async (url: string): Promise<Readiness> => {
  const response = await fetch(`${url}/readyz`);
  expect(response.headers.get('content-type')).toContain('application/json');
  return {
    httpStatus: response.status,
    ...((await response.json()) as Omit<Readiness, 'httpStatus'>),
  };
};

/** Polls /readyz until the requests projection satisfies `predicate`. */
const waitForProjection = async (
  url: string,
  predicate: (report: ProjectionReport) => boolean,
  timeoutMs = CATCH_UP_TIMEOUT_MS,
): Promise<Readiness> => {
  const deadline = Date.now() + timeoutMs;
  let last: Readiness | undefined;
  while (Date.now() < deadline) {
    last = await readiness(url);
    const report = last.projections.find((projection) => projection.name === 'requests');
    if (report && predicate(report)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`/readyz never showed the expected projection state: ${JSON.stringify(last)}`);
};

const serve = async (env: NodeJS.ProcessEnv): Promise<{ running: RunningCli; url: string }> => {
  const running = spawnCli(['serve'], env);
  current = running;
  const ready = await running.waitForLog((line) => line.msg === 'cogitave ready', READY_TIMEOUT_MS);
  expect(ready.projections).toEqual(PROJECTIONS.map((projection) => projection.name));
  return { running, url: ready.url as string };
};

let current: RunningCli | undefined;

// ---------------------------------------------------------------------------------------------
// The Prometheus text format (0.0.4), checked line by line

interface MetricSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly MetricSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

const parseLabels = (text: string, line: string): Record<string, string> => {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match) throw new Error(`malformed labels in: ${line}`);
    const [, name, value] = match;
    if (name === undefined || value === undefined) throw new Error(`malformed labels in: ${line}`);
    if (name in labels) throw new Error(`label ${name} repeated in: ${line}`);
    labels[name] = value.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return labels;
};

const parseValue = (text: string, line: string): number => {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) throw new Error(`not a sample value in: ${line}`);
  return value;
};

/** The family a sample belongs to: its own name, or a histogram's minus its suffix. */
const familyOf = (name: string, types: ReadonlyMap<string, string>): string | undefined => {
  if (types.has(name)) return name;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
  return base !== undefined && types.get(base) === 'histogram' ? base : undefined;
};

/** Parses an exposition, throwing on any line that breaks the format. */
const parsePrometheus = (text: string): Exposition => {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const types = new Map<string, string>();
  const sampled = new Set<string>();
  const samples: MetricSample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('#')) {
      const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!comment) throw new Error(`malformed comment: ${line}`);
      const [, keyword, name, rest] = comment;
      if (name === undefined || rest === undefined || !new RegExp(`^${NAME}$`).test(name)) {
        throw new Error(`bad metric name in: ${line}`);
      }
      if (keyword === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`unknown type in: ${line}`);
        if (types.has(name)) throw new Error(`second # TYPE for ${name}`);
        if (sampled.has(name)) throw new Error(`# TYPE ${name} after its samples`);
        types.set(name, rest);
      }
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not a sample line: "${line}"`);
    const [, name, labelText, valueText] = match;
    if (name === undefined || valueText === undefined) throw new Error(`bad sample: ${line}`);
    const family = familyOf(name, types);
    if (family === undefined) throw new Error(`sample before its # TYPE: ${line}`);
    sampled.add(family);
    samples.push({
      name,
      labels: labelText === undefined ? {} : parseLabels(labelText, line),
      value: parseValue(valueText, line),
    });
  }
  return { types, samples };
};

/** The value of the one sample with exactly these labels. */
const sampleValue = (
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number => {
  const matches = exposition.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.keys(sample.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (matches.length !== 1) {
    throw new Error(`expected one ${name}${JSON.stringify(labels)}, found ${matches.length}`);
  }
  return matches[0]!.value;
};

const metrics = async (url: string): Promise<Exposition> => {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(PROMETHEUS_TYPE);
  return parsePrometheus(await response.text());
};

const REQUESTS = { projection: 'requests' };

/** A caught-up requests projection that applied `applied` events in this process. */
const expectCaughtUpMetrics = (exposition: Exposition, applied: number): void => {
  expect(exposition.types.get('cogitave_projection_events_applied_total')).toBe('counter');
  expect(exposition.types.get('cogitave_projection_lag_events')).toBe('gauge');
  expect(exposition.types.get('cogitave_projection_lag_seconds')).toBe('gauge');
  expect(exposition.types.get('cogitave_projection_batch_duration_seconds')).toBe('histogram');
  expect(sampleValue(exposition, 'cogitave_projection_events_applied_total', REQUESTS)).toBe(
    applied,
  );
  expect(sampleValue(exposition, 'cogitave_projection_lag_events', REQUESTS)).toBe(0);
  expect(sampleValue(exposition, 'cogitave_projection_lag_seconds', REQUESTS)).toBe(0);
  expect(sampleValue(exposition, 'cogitave_projection_failures_total', REQUESTS)).toBe(0);
  expect(sampleValue(exposition, 'cogitave_projection_leader', REQUESTS)).toBe(1);
  expect(
    sampleValue(exposition, 'cogitave_projection_status', { ...REQUESTS, state: 'caught_up' }),
  ).toBe(1);
  const batches = sampleValue(exposition, 'cogitave_projection_batches_total', REQUESTS);
  expect(batches).toBeGreaterThanOrEqual(1);
  expect(batches).toBeLessThanOrEqual(applied);
  expect(
    sampleValue(exposition, 'cogitave_projection_batch_duration_seconds_count', REQUESTS),
  ).toBe(batches);
  expect(
    sampleValue(exposition, 'cogitave_projection_batch_duration_seconds_bucket', {
      ...REQUESTS,
      le: '+Inf',
    }),
  ).toBe(batches);
};

const expectProcessMetrics = (exposition: Exposition, startedBefore: number): void => {
  const start = sampleValue(exposition, 'process_start_time_seconds');
  expect(start).toBeGreaterThanOrEqual(startedBefore - 1);
  expect(start).toBeLessThanOrEqual(Date.now() / 1000);
  expect(sampleValue(exposition, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
  expect(sampleValue(exposition, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  expect(exposition.types.get('process_cpu_seconds_total')).toBe('counter');
};

// ---------------------------------------------------------------------------------------------

describe('ops endpoints of cogitave serve on server Postgres', () => {
  let throwaway: ThrowawayDatabase;
  let writer: Writer;
  let url: string;
  let startedBefore: number;
  /** Every request this describe has proposed, across its tests. */
  const proposed: string[] = [];

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase('ops');
    startedBefore = Date.now() / 1000;
    ({ url } = await serve(
      cliEnv({ DATABASE_URL: throwaway.url, COGITAVE_HTTP_PORT: '0', LOG_LEVEL: 'info' }),
    ));
    // serve has migrated; the writer only appends.
    writer = await openWriter({ databaseUrl: throwaway.url }, false);
  });
  afterAll(async () => {
    await stopCli(current);
    current = undefined;
    await writer.close();
    await throwaway.drop();
  });

  it('given request events appended from another process, when /readyz is polled, then it shows the requests projection caught up at their position, and /metrics agrees', async () => {
    proposed.push(...(await proposeRequests(writer.handlers, 5)));
    const log = await requestLog(writer.store, proposed);

    const ready = await waitForProjection(
      url,
      (report) => report.state === 'caught_up' && report.position === log.position,
    );
    expect(ready).toMatchObject({
      httpStatus: 200,
      status: 'ready',
      checks: [
        { name: 'database', ok: true },
        { name: 'search', ok: true },
        { name: 'catalog', ok: true },
      ],
    });
    expect(ready.projections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'requests',
          state: 'caught_up',
          leader: true,
          position: log.position,
          lagEvents: 0,
          lagSeconds: 0,
          eventsApplied: log.count,
          error: null,
        }),
      ]),
    );

    const exposition = await metrics(url);
    expectCaughtUpMetrics(exposition, log.count);
    expectProcessMetrics(exposition, startedBefore);
  });

  it('given MCP traffic, when /metrics is read, then tool calls by tool and outcome with latency, open sessions, listen streams and HTTP responses by route are there', async () => {
    const client = new Client({ name: 'ops-metrics', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    try {
      await client.callTool({ name: 'describe_schema', arguments: {} });
      await client.callTool({ name: 'describe_schema', arguments: {} });
      const refused = await client.callTool({ name: 'get_request', arguments: {} });
      expect(refused.isError).toBe(true);
      const progress: number[] = [];
      await client.callTool(
        { name: 'query_graph', arguments: { query: 'MATCH (r:Request) RETURN count(*) AS n' } },
        undefined,
        { onprogress: (update) => progress.push(update.progress) },
      );
      expect(progress).toEqual([0, 1, 2, 3]);

      const exposition = await metrics(url);
      const ok = { tool: 'describe_schema', outcome: 'ok' };
      expect(sampleValue(exposition, 'cogitave_mcp_tool_calls_total', ok)).toBe(2);
      expect(
        sampleValue(exposition, 'cogitave_mcp_tool_calls_total', {
          tool: 'get_request',
          outcome: 'tool_error',
        }),
      ).toBe(1);
      expect(exposition.types.get('cogitave_mcp_tool_call_duration_seconds')).toBe('histogram');
      expect(
        sampleValue(exposition, 'cogitave_mcp_tool_call_duration_seconds_count', {
          tool: 'describe_schema',
        }),
      ).toBe(2);
      expect(sampleValue(exposition, 'cogitave_mcp_sessions_open')).toBe(1);
      expect(sampleValue(exposition, 'cogitave_mcp_listen_streams_open')).toBe(0);
      expect(
        sampleValue(exposition, 'cogitave_http_responses_total', { route: '/mcp', status: '200' }),
      ).toBeGreaterThanOrEqual(4);
      expect(
        sampleValue(exposition, 'cogitave_mcp_notifications_sent_total', {
          method: 'notifications/progress',
        }),
      ).toBe(4);
    } finally {
      await client.close();
    }
  });

  it('given /metrics, when asked with HEAD or another method, then HEAD answers headers only and POST answers 405 naming GET, HEAD and OPTIONS', async () => {
    const head = await fetch(`${url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(PROMETHEUS_TYPE);
    expect(await head.text()).toBe('');

    const post = await fetch(`${url}/metrics`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(post.headers.get('content-type')).toContain('application/problem+json');
    expect(await post.json()).toMatchObject({ status: 405, title: 'Method Not Allowed' });
  });

  // Last: the projection stays stopped for the rest of this process's life.
  it('given an event the projection cannot apply, when it stops on it, then /readyz answers 503 naming the event and /metrics shows the failure and the events left behind', async () => {
    const before = await requestLog(writer.store, proposed);
    const requestId = 'req-2020-9999';
    const at = new Date(Date.now() - 120_000).toISOString();
    const bad = await writer.store.append(
      requestStreamId(requestId),
      [
        {
          id: randomUUID(),
          type: 'RequestProposed',
          // No title, priority outside the enum: the projection refuses it.
          data: { requestId, priority: 'urgent' },
          metadata: {
            actor: 'agent:broken',
            correlationId: randomUUID(),
            causationId: randomUUID(),
            at,
          },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const later = await proposeRequests(writer.handlers, 1);

    // The stop is immediate; the lag behind it is measured by the probe (every 5 s).
    const down = await waitForProjection(
      url,
      (report) => report.state === 'stopped' && report.lagEvents !== null && report.lagEvents > 0,
    );
    expect(down.httpStatus).toBe(503);
    expect(down.status).toBe('not ready');
    expect(down.checks).toEqual([
      { name: 'database', ok: true },
      { name: 'search', ok: true },
      { name: 'catalog', ok: true },
    ]);
    const report = down.projections.find((projection) => projection.name === 'requests')!;
    expect(report).toMatchObject({
      name: 'requests',
      state: 'stopped',
      position: before.position,
      error: {
        position: bad.position,
        type: 'RequestProposed',
        streamId: requestStreamId(requestId),
        revision: '0',
      },
    });
    // The refused event and everything after it.
    const behind = 1 + (await requestLog(writer.store, later)).count;
    expect(report.lagEvents).toBe(behind);
    expect(report.lagSeconds).toBeGreaterThanOrEqual(120);

    const exposition = await metrics(url);
    expect(sampleValue(exposition, 'cogitave_projection_failures_total', REQUESTS)).toBe(1);
    expect(sampleValue(exposition, 'cogitave_projection_lag_events', REQUESTS)).toBe(behind);
    expect(
      sampleValue(exposition, 'cogitave_projection_lag_seconds', REQUESTS),
    ).toBeGreaterThanOrEqual(120);
    expect(
      sampleValue(exposition, 'cogitave_projection_status', { ...REQUESTS, state: 'stopped' }),
    ).toBe(1);
    expect(sampleValue(exposition, 'cogitave_projection_events_applied_total', REQUESTS)).toBe(
      before.count,
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});

describe('ops endpoints of cogitave serve on the embedded default (PGlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cogitave-ops-'));
  afterAll(async () => {
    await stopCli(current);
    current = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('given request events in the data dir, when served, then the projection catches up and /readyz, /metrics and a clean stop work there too', async () => {
    // PGlite is one process at a time: append first, close, then serve.
    const writer = await openWriter({ dataDir }, true);
    let log: { count: number; position: Position };
    try {
      log = await requestLog(writer.store, await proposeRequests(writer.handlers, 3));
    } finally {
      await writer.close();
    }

    const startedBefore = Date.now() / 1000;
    const { running, url } = await serve(
      cliEnv({ COGITAVE_DATA_DIR: dataDir, COGITAVE_HTTP_PORT: '0', LOG_LEVEL: 'info' }),
    );
    const ready = await waitForProjection(
      url,
      (report) => report.state === 'caught_up' && report.position === log.position,
    );
    expect(ready).toMatchObject({ httpStatus: 200, status: 'ready' });
    expect(ready.projections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'requests',
          leader: true,
          lagEvents: 0,
          lagSeconds: 0,
          eventsApplied: log.count,
          error: null,
        }),
      ]),
    );

    const exposition = await metrics(url);
    expectCaughtUpMetrics(exposition, log.count);
    expectProcessMetrics(exposition, startedBefore);
    expect((await fetch(`${url}/metrics`, { method: 'DELETE' })).status).toBe(405);

    running.child.kill('SIGTERM');
    const exit = await running.exited;
    expect(exit.code).toBe(0);
  });
});
