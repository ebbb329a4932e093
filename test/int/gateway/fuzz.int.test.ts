import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayServices,
  type ComposedGatewayServices,
} from '../../../bin/gateway-services.js';
import { createMcpGateway, type McpGateway } from '../../../mcp-gateway/server/factory.js';
import { LOCAL_CALLER, type Caller } from '../../../mcp-gateway/registry.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { createApp, type App } from '../../../bin/app.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import {
  callEveryTool,
  ingestShippedCorpus,
  waitForProjections,
} from '../../e2e/gateway/support.js';
import { fuzzArguments, type FieldPools } from './fuzz-arbitraries.js';

/**
 * Every tool of ALL_TOOLS fuzzed through a real MCP client and the real server factory over the
 * SDK's linked in-memory transport, on real Postgres with the shipped corpus, a request and a
 * network in place. Per call: an answer (no protocol error, no hang), an `isError` result names
 * what was wrong (and is never our internal error), a success validates against the listed
 * outputSchema, and nothing is appended by a call answered `isError`.
 *
 * FUZZ_RUNS sets the argument sets per tool (default 1000); FUZZ_SEED replays a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;
/**
 * Calls run this many at a time, one per client; each client is its own caller (actor
 * `fuzz:lane-N`), so the events a call appends are told apart by their `actor` metadata.
 */
const LANES = 16;
const CALL_TIMEOUT_MS = 20_000;
const ERROR_CODE =
  /^(INVALID_ARGUMENT|NOT_FOUND|FAILED_PRECONDITION|PERMISSION_DENIED|ALREADY_EXISTS|RESOURCE_EXHAUSTED|DEADLINE_EXCEEDED|UNAVAILABLE|CONFLICT|OUT_OF_RANGE|ABORTED): \S.{8,}/s;

let db: ThrowawayDatabase;
let app: App;
let composed: ComposedGatewayServices;
let gateway: McpGateway;
let client: Client;
let lanes: Client[] = [];
let listed: Map<string, { inputSchema: unknown; outputSchema?: Record<string, unknown> }>;
let pools: (tool: string) => FieldPools;
const SUFFIX = 'fuzz';

/**
 * Waits until the read models have applied what was appended: their lag is read on their
 * next poll, so give them a few polls to see the new head first.
 */
const caughtUp = async (): Promise<void> => {
  await new Promise((resolve) => setTimeout(resolve, 600));
  await waitForProjections([app]);
};

const laneActor = (lane: number): string => `fuzz:lane-${String(lane)}`;

/** Events appended by `actor` (every event records its caller as `actor`). */
const eventCount = async (actor?: string): Promise<number> => {
  const { rows } = await app.database.pool.query<{ n: number }>(
    actor === undefined
      ? 'SELECT count(*)::int AS n FROM event_store.events'
      : "SELECT count(*)::int AS n FROM event_store.events WHERE (content::jsonb)->'metadata'->>'actor' = $1",
    actor === undefined ? [] : [actor],
  );
  return rows[0]?.n ?? 0;
};

const connect = async (caller: Caller): Promise<Client> => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.createServer(caller, { era: 'legacy' }).connect(serverSide);
  const connected = new Client({ name: 'fuzz', version: '1.0.0' });
  await connected.connect(clientSide);
  return connected;
};

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_fuzz');
  app = await createApp(
    loadConfig({
      DATABASE_URL: db.url,
      CATALOG_DIR: 'none',
      COGITAVE_DB_POOL_SIZE: '8',
      COGITAVE_POLL_INTERVAL_MS: '100',
    }),
    createLogger('silent'),
  );
  composed = await createGatewayServices(app);
  gateway = createMcpGateway({
    tools: ALL_TOOLS,
    services: composed.services,
    logger: createLogger('silent'),
    version: '0.0.0-test',
  });
  app.projections.start();
  await ingestShippedCorpus(app);
  await caughtUp();

  client = await connect(LOCAL_CALLER);
  lanes = await Promise.all(
    Array.from({ length: LANES }, (_, lane) =>
      connect({ actor: laneActor(lane), grants: LOCAL_CALLER.grants }),
    ),
  );
  const { tools } = await client.listTools();
  listed = new Map(tools.map((tool) => [tool.name, tool]));

  // The e2e fixtures: every tool once with its sample (a request, a network with two nodes).
  let requestId = '';
  await callEveryTool(
    tools,
    async (name, args) => {
      const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
      if (name === 'request_intake')
        requestId = (result.structuredContent as { request_id: string }).request_id;
      return result as never;
    },
    SUFFIX,
  );
  await caughtUp();

  const { rows } = await app.database.pool.query<{ uid: string }>(
    `SELECT split_part(uri, '/', 4) AS uid FROM read_model.resources
      WHERE type NOT IN ('request', 'network') ORDER BY uri LIMIT 12`,
  );
  const uids = rows.map((row) => row.uid);
  const common: FieldPools = {
    request_id: [requestId, 'req-2026-9999'],
    uid: uids,
    target_uid: uids,
    known_uids: uids,
    xref: uids.flatMap((uid) => [`@${uid}`, `<xref:${uid}>`, uid]),
    network_name: [`e2e_${SUFFIX}`, 'missing_net'],
    node_id: ['agents', 'logging', 'nowhere'],
    source: ['agents', 'logging'],
    target: ['agents', 'logging'],
    product: ['core', 'cogitave-core'],
    moniker: ['latest', '2026-01'],
  };
  pools = (tool) =>
    tool === 'query_graph'
      ? {
          ...common,
          query: [
            'MATCH (d:Doc) RETURN d.uid LIMIT 5',
            'MATCH (a)-[r*1..4]->(b) RETURN a.uid, b.uid LIMIT 1000',
            'MATCH (a)-[*1..9]->(b) RETURN b',
            'MATCH (d:Doc {uid: $uid}) RETURN d',
            'CREATE (n:Doc {uid: "x"})',
          ],
        }
      : { ...common, query: ['event store', 'connect a client', 'audit'] };
}, 180_000);

afterAll(async () => {
  for (const lane of lanes) await lane.close();
  await client.close();
  await composed.close();
  await app.close();
  await db.drop();
});

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
const validators = new Map<string, ValidateFunction>();
const outputValidator = (tool: string): ValidateFunction => {
  let validate = validators.get(tool);
  if (!validate) {
    const schema = listed.get(tool)?.outputSchema;
    if (!schema) throw new Error(`${tool} lists no outputSchema`);
    validate = ajv.compile(schema);
    validators.set(tool, validate);
  }
  return validate;
};

/**
 * The arguments as a server receives them over JSON: the SDK's request parsing drops a
 * `__proto__` key (its record copy never makes it an own field), so that key can neither
 * reach a handler nor be refused by one.
 */
const asServerSees = (args: unknown): unknown => {
  const parsed = JSON.parse(JSON.stringify(args ?? {})) as Record<string, unknown>;
  Reflect.deleteProperty(parsed, '__proto__');
  return parsed;
};

interface Answer {
  readonly isError: boolean;
  readonly text: string;
}

/** One call and every per-call property; returns why it failed, or the answer. */
const callAndCheck = async (
  lane: Client,
  name: string,
  args: unknown,
): Promise<Answer | string> => {
  let result;
  try {
    result = await lane.callTool(
      { name, arguments: args as Record<string, unknown> },
      { timeout: CALL_TIMEOUT_MS },
    );
  } catch (error) {
    return `threw (protocol error, hang or client-side refusal): ${(error as Error).message}`;
  }
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content
    .map((item) => (item as { type?: string; text?: string }).text ?? '')
    .join('\n');
  const definition = gateway.tools.get(name)?.definition;
  const inputOk = definition?.input.safeParse(asServerSees(args)).success ?? false;
  if (result.isError === true) {
    if (text.trim() === '') return 'isError without a message';
    if (text.startsWith('internal error')) return `internal error: ${text}`;
    if (!ERROR_CODE.test(text)) return `isError message without a code and detail: ${text}`;
    if (!inputOk && !text.includes(`Invalid arguments for ${name}`))
      return `arguments outside the input schema answered without naming them: ${text}`;
    if (result.structuredContent !== undefined) {
      const validate = outputValidator(name);
      if (!validate(result.structuredContent))
        return `error structuredContent outside outputSchema: ${ajv.errorsText(validate.errors)}`;
    }
    return { isError: true, text };
  }
  if (!inputOk) return `arguments outside the input schema were accepted: ${text.slice(0, 200)}`;
  if (result.structuredContent === undefined) return 'success without structuredContent';
  const validate = outputValidator(name);
  if (!validate(result.structuredContent))
    return `structuredContent outside outputSchema: ${ajv.errorsText(validate.errors)}`;
  if (text.trim() === '') return 'success without a text rendering';
  return { isError: false, text };
};

const settings = (runs: number) => ({
  numRuns: runs,
  ...(SEED !== undefined ? { seed: SEED } : {}),
});

const tally = { calls: 0, errors: 0, successes: 0, appendedBySuccess: 0 };

describe('text Postgres cannot store', () => {
  it.each([
    [
      'network_get_neighbors',
      { network_name: 'e2e_fuzz', node_id: 'a\u0000b' },
      'node_id: contains the NUL',
    ],
    [
      'network_add_node',
      { network_name: 'e2e_fuzz', node_id: 'n1', data: ['\uD800'] },
      'data[0]: contains an unpaired',
    ],
    [
      'network_add_node',
      { network_name: 'e2e_fuzz', node_id: 'n1', attributes: { 'k\u0000': 1 } },
      'attributes: a field name contains the NUL',
    ],
  ])(
    'given %s with %j, when called, then isError naming the field and nothing appended',
    async (name, args, expected) => {
      const before = await eventCount();
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain(expected);
      expect(await eventCount()).toBe(before);
    },
  );
});

describe('fuzz: every tool through a real MCP client', () => {
  it('given the registry, when listed, then every tool of ALL_TOOLS is fuzzed', () => {
    expect([...listed.keys()].sort()).toEqual(ALL_TOOLS.map((tool) => tool.name).sort());
    expect(RUNS).toBeGreaterThan(0);
  });

  for (const tool of ALL_TOOLS) {
    const writes = tool.access !== 'read';
    it(`given ${String(RUNS)} random argument sets, when ${tool.name} is called with each, then every answer is a well-formed result and ${writes ? 'only successes append' : 'nothing is appended'}`, async () => {
      const args = fuzzArguments(listed.get(tool.name)?.inputSchema, pools(tool.name));
      const seen = { errors: 0, successes: 0 };
      /** One call on one lane, with the events its caller appended meanwhile. */
      const laneCall = async (lane: number, one: unknown): Promise<void> => {
        const actor = laneActor(lane);
        const before = await eventCount(actor);
        const answer = await callAndCheck(lanes[lane] as Client, tool.name, one);
        const appended = (await eventCount(actor)) - before;
        if (typeof answer === 'string') throw new Error(answer);
        if (answer.isError && appended !== 0)
          throw new Error(
            `${String(appended)} event(s) appended by an isError call: ${answer.text}`,
          );
        if (!writes && appended !== 0)
          throw new Error(`read tool ${tool.name} appended ${String(appended)} event(s)`);
        seen[answer.isError ? 'errors' : 'successes'] += 1;
        tally.appendedBySuccess += appended;
      };
      await fc.assert(
        fc.asyncProperty(fc.array(args, { minLength: LANES, maxLength: LANES }), async (batch) => {
          const before = await eventCount();
          const outcomes = await Promise.allSettled(batch.map((one, lane) => laneCall(lane, one)));
          const failed = outcomes.find((outcome) => outcome.status === 'rejected');
          if (failed) throw failed.reason;
          if (!writes && (await eventCount()) !== before)
            throw new Error(`events appended during a batch of ${tool.name} calls`);
        }),
        settings(Math.ceil(RUNS / LANES)),
      );
      tally.calls += seen.errors + seen.successes;
      tally.errors += seen.errors;
      tally.successes += seen.successes;
      // Both kinds of answer were exercised (the generator is not all noise nor all valid).
      // describe_schema takes any object, so nothing it is sent is wrong.
      if (Object.keys(tool.input.shape).length > 0)
        expect(seen.errors, `${tool.name}: some calls refused`).toBeGreaterThan(0);
      // advance_stage: the fixture request has a pending proposal, so every proposal is refused.
      if (tool.name !== 'advance_stage')
        expect(seen.successes, `${tool.name}: some calls succeeded`).toBeGreaterThan(0);
    });
  }

  it('given the whole run, when tallied, then calls were made and successful writes appended', () => {
    expect(tally.calls).toBeGreaterThanOrEqual(RUNS * ALL_TOOLS.length);
    expect(tally.appendedBySuccess).toBeGreaterThan(0);
  });

  it('given the whole run, then every projection applied every accepted event (none stopped)', () => {
    for (const status of app.projections.status()) {
      expect(status.state, `${status.name}: ${JSON.stringify(status.error)}`).not.toBe('stopped');
    }
  });
});
