import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { cliEnv, runCli } from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { startServe, type StartedServe } from '../../topology/processes.js';
import { makeCorpus, md, type CorpusFolder } from '../../unit/catalog/fixtures.js';
import { eventually, tokenTable } from './support.js';

/**
 * The grant matrix: a real `cogitave serve` with five bearer tokens {all, types-restricted,
 * product-restricted, no-propose, no-network-write}, seeded with two products and every node
 * type, requests and a network. Every tool (generated arguments, fast-check) over MCP
 * 2025-11-25 (v1 SDK), MCP 2026-07-28 (v2 SDK) and REST; every resource method; subscribe and
 * listen; `/llms.txt`. Each answer and notification must carry no uid, title or text the
 * token may not read, and an id outside the grant must be answered exactly as a missing one.
 *
 * It talks to the product from outside only (processes, HTTP, the SDK clients), so the same
 * file runs against any revision of the code.
 */

type Scope = {
  readonly types: readonly string[] | '*';
  readonly products: readonly string[] | '*';
};

interface TokenGrants extends Scope {
  readonly propose: boolean;
  readonly writeNetworks: boolean;
}
type TokenName = 'all' | 'types' | 'product' | 'no-propose' | 'no-network-write';
const TOKENS: Readonly<Record<TokenName, TokenGrants>> = {
  all: { products: '*', types: '*', propose: true, writeNetworks: true },
  types: { products: '*', types: ['doc', 'article'], propose: true, writeNetworks: true },
  product: { products: ['alpha'], types: '*', propose: true, writeNetworks: true },
  'no-propose': { products: '*', types: '*', propose: false, writeNetworks: true },
  'no-network-write': { products: '*', types: '*', propose: true, writeNetworks: false },
};
const TOKEN_NAMES = Object.keys(TOKENS) as TokenName[];
const secretOf = (name: TokenName): string => `grant-matrix-${name}-secret`;

/** One thing that exists, and what would give it away. */
interface Entity {
  readonly uri: string;
  readonly type: string;
  readonly product: string | null;
  /** The id callers name it by (uid, request id, network name). */
  readonly id: string;
  readonly secrets: readonly string[];
}
const universe: Entity[] = [];

const mayRead = (scope: Scope, entity: Pick<Entity, 'type' | 'product'>): boolean =>
  (scope.types === '*' || scope.types.includes(entity.type)) &&
  (scope.products === '*' || entity.product === null || scope.products.includes(entity.product));

const hiddenFrom = (token: TokenName): Entity[] =>
  universe.filter((entity) => !mayRead(TOKENS[token], entity));

/**
 * Forbidden strings found in a payload. What the call itself named (an id in its arguments,
 * echoed in "not found") is the caller's own, not a leak.
 */
const leaksIn = (token: TokenName, payload: unknown, sent: unknown = {}): string[] => {
  const text = JSON.stringify(payload);
  const own = JSON.stringify(sent);
  return [...new Set(hiddenFrom(token).flatMap((entity) => entity.secrets))].filter(
    (secret) => text.includes(secret) && !own.includes(secret),
  );
};

// ---- the seed ---------------------------------------------------------------------------------

const PRODUCTS = ['alpha', 'beta'] as const;
const typeOfLabel: Record<string, string> = {
  Doc: 'doc',
  Article: 'article',
  Unit: 'unit',
  Module: 'module',
  LearningPath: 'learning-path',
  ADR: 'adr',
  Skill: 'skill',
  CodeSample: 'code-sample',
};

const node = (
  uid: string,
  label: string,
  product: string | null,
  extra: Record<string, unknown> = {},
  body = '',
) => ({
  file: md(
    {
      uid,
      label,
      title: `${uid} title`,
      summary: `${uid} summary`,
      ...(product === null ? {} : { product }),
      ...extra,
    },
    `${uid}-body-marker. ${body}`,
  ),
  entity: {
    uri: `cogitave://${typeOfLabel[label] ?? ''}/${uid}`,
    type: typeOfLabel[label] ?? '',
    product,
    id: uid,
    secrets: [uid, `${uid} title`, `${uid} summary`, `${uid}-body-marker`],
  } satisfies Entity,
});

const corpusFiles = (revision: number): { files: Record<string, string>; entities: Entity[] } => {
  const nodes = PRODUCTS.flatMap((p) => [
    node(
      `${p}-doc`,
      'Doc',
      p,
      {
        relatedTo: [`${p === 'alpha' ? 'beta' : 'alpha'}-doc`, 'common-doc'],
        ...(p === 'beta' ? { monikers: ['latest', '2024-05'] } : {}),
      },
      `Revision ${String(p === 'beta' ? revision : 1)}.\n\n\`\`\`ts\nexport const ${p}Value: number = 1;\n\`\`\`\n`,
    ),
    node(`${p}-article`, 'Article', p, { dependsOn: `${p}-adr` }),
    node(`${p}-path`, 'LearningPath', p),
    node(`${p}-module`, 'Module', p, {
      partOf: { uid: 'alpha-path', ordinal: p === 'alpha' ? 1 : 2 },
      teaches: `${p}-skill`,
    }),
    node(`${p}-unit`, 'Unit', p, {
      durationInMinutes: 5,
      partOf: { uid: `${p}-module`, ordinal: 1 },
      prerequisiteOf: `${p}-skill`,
    }),
    node(
      `${p}-adr`,
      'ADR',
      p,
      { status: 'accepted', date: '2026-01-01' },
      p === 'beta' ? `Revision ${String(revision)}.` : '',
    ),
    node(`${p}-skill`, 'Skill', p),
  ]);
  nodes.push(
    node('common-doc', 'Doc', null, { relatedTo: ['alpha-doc', 'beta-doc'] }, `r${revision}`),
  );
  const entities = nodes.map((n) => n.entity);
  for (const p of PRODUCTS) {
    const uid = `${p}-doc.sample-1`;
    entities.push({
      uri: `cogitave://code-sample/${uid}`,
      type: 'code-sample',
      product: p,
      id: uid,
      secrets: [uid, `${p}-doc title: sample 1`],
    });
  }
  // The dated moniker only a beta node carries.
  const betaDoc = entities.findIndex((entity) => entity.id === 'beta-doc');
  const found = entities[betaDoc];
  if (found) entities[betaDoc] = { ...found, secrets: [...found.secrets, '2024-05'] };
  return {
    files: Object.fromEntries(nodes.map((n) => [`${n.entity.id}.md`, n.file])),
    entities,
  };
};

// ---- the product, its clients --------------------------------------------------------------

let db: ThrowawayDatabase;
let served: StartedServe;
let corpus: CorpusFolder;
const env = (): NodeJS.ProcessEnv =>
  cliEnv({
    DATABASE_URL: db.url,
    COGITAVE_HTTP_PORT: '0',
    COGITAVE_POLL_INTERVAL_MS: '100',
    MCP_TOKENS: tokenTable(
      Object.fromEntries(
        TOKEN_NAMES.map((name) => [secretOf(name), { name, grants: TOKENS[name] }]),
      ),
    ),
  });

const ingest = async (revision: number): Promise<void> => {
  const { files } = corpusFiles(revision);
  for (const [path, text] of Object.entries(files)) await corpus.write(path, text);
  const result = await runCli(['ingest', corpus.dir], env(), 120_000);
  if (result.code !== 0) throw new Error(`ingest failed: ${result.stderr}`);
};

const auth = (token: TokenName) => ({ authorization: `Bearer ${secretOf(token)}` });

const connectLegacy = async (token: TokenName): Promise<LegacyClient> => {
  const client = new LegacyClient({ name: `matrix-v1-${token}`, version: '1.0.0' });
  await client.connect(
    new LegacyHttp(new URL(`${served.url}/mcp`), { requestInit: { headers: auth(token) } }),
  );
  return client;
};

const connectModern = async (token: TokenName): Promise<ModernClient> => {
  const client = new ModernClient(
    { name: `matrix-v2-${token}`, version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new ModernHttp(new URL(`${served.url}/mcp`), { requestInit: { headers: auth(token) } }),
  );
  return client;
};

interface Answer {
  readonly ok: boolean;
  readonly payload: unknown;
}

type Surface = 'mcp-2025' | 'mcp-2026' | 'rest';
type CallTool = (name: string, args: Record<string, unknown>) => Promise<Answer>;

const clients = new Map<string, { call: CallTool; close: () => Promise<void> }>();

const toolCaller = async (surface: Surface, token: TokenName): Promise<CallTool> => {
  const key = `${surface}:${token}`;
  const known = clients.get(key);
  if (known) return known.call;
  let entry: { call: CallTool; close: () => Promise<void> };
  if (surface === 'rest') {
    entry = {
      call: async (name, args) => {
        const response = await fetch(`${served.url}/api/tools/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth(token) },
          body: JSON.stringify(args),
        });
        return {
          ok: response.ok,
          payload: { status: response.status, body: await response.json() },
        };
      },
      close: () => Promise.resolve(),
    };
  } else {
    const client = surface === 'mcp-2025' ? await connectLegacy(token) : await connectModern(token);
    entry = {
      call: async (name, args) => {
        try {
          const result = (await client.callTool({ name, arguments: args })) as {
            isError?: boolean;
          };
          return { ok: result.isError !== true, payload: result };
        } catch (error) {
          return { ok: false, payload: { error: (error as Error).message } };
        }
      },
      close: () => client.close(),
    };
  }
  clients.set(key, entry);
  return entry.call;
};

// ---- what the matrix counts -----------------------------------------------------------------

interface Failure {
  readonly where: string;
  readonly problem: string;
}
let cases = 0;
const failures: Failure[] = [];

/** One case: the payload must not give away anything the token may not read. */
const checkLeaks = (token: TokenName, where: string, payload: unknown, sent?: unknown): void => {
  cases += 1;
  const leaks = leaksIn(token, payload, sent);
  if (leaks.length > 0) {
    failures.push({ where, problem: `leaks ${leaks.slice(0, 5).join(', ')}` });
  }
};

/** The answer with the id it was about replaced, and closest-match suggestions removed. */
const normalise = (value: unknown, id: string): unknown => {
  if (typeof value === 'string') {
    return value
      .replaceAll(encodeURIComponent(id), '<id>')
      .replaceAll(id, '<id>')
      .replace(/; closest: [^"]*$/s, '; closest: <…>')
      .replace(/"elapsedMs":[0-9.]+/g, '');
  }
  if (Array.isArray(value)) return value.map((item) => normalise(item, id));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'closest' && key !== 'elapsedMs')
        .map(([key, item]) => [key, normalise(item, id)]),
    );
  }
  return value;
};

/** One case: a hidden id and a missing one must be answered alike. */
const checkAbsent = (
  where: string,
  hidden: { id: string; answer: Answer },
  missing: { id: string; answer: Answer },
): void => {
  cases += 1;
  const a = JSON.stringify(normalise(hidden.answer, hidden.id));
  const b = JSON.stringify(normalise(missing.answer, missing.id));
  if (a !== b)
    failures.push({ where, problem: `hidden ${a.slice(0, 300)} ≠ missing ${b.slice(0, 300)}` });
};

/** The failures of one test (its cases' descriptions start with `prefix`). */
const failuresOf = (prefix: string): Failure[] =>
  failures.filter((failure) => failure.where.startsWith(prefix));

const report = (): string =>
  `${String(failures.length)} of ${String(cases)} cases failed:\n${failures
    .slice(0, 40)
    .map((failure) => `- ${failure.where}: ${failure.problem}`)
    .join('\n')}`;

// ---- tools with generated arguments ---------------------------------------------------------

const MISSING_UID = 'gamma-doc';
const MISSING_REQUEST = 'req-2099-0042';
const catalogIds = (): string[] => [
  ...universe
    .filter(
      (entity) =>
        entity.uri.startsWith('cogitave://') &&
        !entity.uri.includes('/request/') &&
        !entity.uri.includes('/network/'),
    )
    .map((entity) => entity.id),
  MISSING_UID,
];
const requestIds = (): string[] => [
  ...universe.filter((entity) => entity.type === 'request').map((entity) => entity.id),
  MISSING_REQUEST,
];

const GRAPH_QUERIES = [
  'MATCH (r:Request) RETURN r.title, r.summary, r.stage, r.requester',
  'MATCH (n) RETURN n.label, count(*)',
  'MATCH (n) RETURN n, n.title, n.summary, n.monikers',
  'MATCH (a)-[r]->(b) RETURN a.uid, r, b.uid',
  'MATCH (a {uid: $uid})-[*1..3]-(b) RETURN DISTINCT b.uid, b.title',
  'MATCH (u:Unit)-[:partOf]->(m:Module)-[:partOf]->(p:LearningPath) RETURN u, m, p',
  'MATCH (d:Doc)-[:relatedTo]->(e) RETURN d.uid, e.uid, e.title',
  'MATCH (n) WHERE n.product = $product RETURN n.uid, count(*)',
];

const oneOf = <T>(values: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...values);
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined });
const defined = (args: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));

let written = 0;
const toolArguments = (token: TokenName): Record<string, fc.Arbitrary<Record<string, unknown>>> => {
  const uid = oneOf(catalogIds());
  const requestId = oneOf(requestIds());
  const product = oneOf(['alpha', 'beta', 'gamma']);
  const words = oneOf(['doc', 'title', 'summary', 'alpha', 'beta', 'marker', 'sample', 'value']);
  return {
    describe_schema: fc.constant({}),
    docs_search: fc
      .record({
        query: words,
        product: maybe(product),
        limit: maybe(fc.integer({ min: 1, max: 50 })),
      })
      .map(defined),
    docs_fetch: fc.record({ uid }),
    code_sample_search: fc.record({ query: oneOf(['value number', 'export const', 'sample']) }),
    get_related: fc
      .record({ uid, direction: maybe(oneOf(['out', 'in', 'both'])), depth: maybe(oneOf([1, 2])) })
      .map(defined),
    get_learning_path: fc.record({ target_uid: uid }),
    resolve_xref: fc.record({ xref: uid.map((id) => `@${id}`) }),
    list_requests: fc
      .record({ product: maybe(oneOf(['alpha'])), limit: maybe(fc.integer({ min: 1, max: 5 })) })
      .map(defined),
    get_request: fc
      .record({ request_id: requestId, as_of: maybe(fc.constant(new Date().toISOString())) })
      .map(defined),
    get_dod: fc.record({ request_id: requestId }),
    request_intake: fc.record({ product }).map(({ product: p }) => {
      written += 1;
      const marker = `${token}-intake-${String(written)}`;
      return {
        title: `${marker} title words`,
        problem: `${marker} problem: callers cannot read what they are granted today.`,
        product: p,
        requester: `${marker}-requester`,
        acceptance_criteria: ['Every answer stays within the token grant'],
      };
    }),
    advance_stage: fc.record({ request_id: requestId }).map(({ request_id }) => ({
      request_id,
      to_stage: 'accepted',
      evidence: {},
      rationale: 'The intake looks complete to the proposer.',
    })),
    network_create: fc.constant({ network_name: `matrix_${token.replace(/-/g, '_')}` }),
    network_list: fc.constant({}),
    network_get_neighbors: fc.record({
      network_name: oneOf(['falcon_net', 'ghost_net']),
      node_id: oneOf(['falcon-node-a', 'ghost-node']),
    }),
    network_add_node: fc.record({
      network_name: oneOf(['falcon_net', 'ghost_net']),
      node_id: fc.constant(`${token}-node`),
    }),
    network_add_edge: fc.record({
      network_name: fc.constant('falcon_net'),
      source: oneOf(['falcon-node-a', 'ghost-node']),
      target: fc.constant('falcon-node-b'),
    }),
    network_add_nodes: fc.record({
      network_name: oneOf(['falcon_net', 'ghost_net']),
      nodes: fc.constant([{ node_id: `${token}-batch-node` }, { node_id: 'falcon-node-a' }]),
    }),
    network_add_edges: fc.record({
      network_name: fc.constant('falcon_net'),
      edges: fc.constant([
        { source: 'falcon-node-a', target: 'falcon-node-b' },
        { source: 'ghost-node', target: 'falcon-node-b' },
      ]),
    }),
    query_graph: fc
      .record({ query: oneOf(GRAPH_QUERIES), uid, product })
      .map(({ query, uid: id, product: p }) => ({
        query,
        ...(query.includes('$uid') ? { params: { uid: id } } : {}),
        ...(query.includes('$product') ? { params: { product: p } } : {}),
      })),
  };
};

/** After a write, what it created is part of what other tokens must not see. */
const remember = (name: string, args: Record<string, unknown>, answer: Answer): void => {
  if (name !== 'request_intake' || !answer.ok) return;
  const payload = answer.payload as {
    structuredContent?: { request_id?: string };
    body?: { request_id?: string };
  };
  const id = payload.structuredContent?.request_id;
  if (id === undefined) return;
  const title = String(args.title);
  universe.push({
    uri: `cogitave://request/${id}`,
    type: 'request',
    product: String(args.product),
    id,
    secrets: [id, title, String(args.requester)],
  });
};

const ID_TOOLS: Record<string, (id: string) => Record<string, unknown>> = {
  docs_fetch: (id) => ({ uid: id }),
  get_related: (id) => ({ uid: id }),
  get_learning_path: (id) => ({ target_uid: id }),
  resolve_xref: (id) => ({ xref: `@${id}` }),
};
const REQUEST_TOOLS: Record<string, (id: string) => Record<string, unknown>> = {
  get_request: (id) => ({ request_id: id }),
  get_dod: (id) => ({ request_id: id }),
  advance_stage: (id) => ({
    request_id: id,
    to_stage: 'accepted',
    evidence: {},
    rationale: 'The intake looks complete to the proposer.',
  }),
};
/** The tools the REST surface serves: the read tools, as each tool's definition says. */
const READ_TOOLS: ReadonlySet<string> = new Set(
  ALL_TOOLS.filter((tool) => tool.access === 'read').map((tool) => tool.name),
);
const CASES_PER_TOOL = 3;

const runToolMatrix = async (surface: Surface, token: TokenName): Promise<void> => {
  const call = await toolCaller(surface, token);
  const arbitraries = toolArguments(token);
  for (const [name, arbitrary] of Object.entries(arbitraries)) {
    if (surface === 'rest' && !READ_TOOLS.has(name)) continue;
    const samples = fc.sample(arbitrary, { numRuns: CASES_PER_TOOL, seed: name.length * 7919 });
    for (const args of samples) {
      const answer = await call(name, args);
      checkLeaks(
        token,
        `${surface} ${token} ${name} ${JSON.stringify(args).slice(0, 80)}`,
        answer,
        args,
      );
      remember(name, args, answer);
    }
  }
  // An id outside the grant, and one that does not exist: the same answer. Every hidden id on
  // the first surface; one per type on the others (the same services answer all three).
  const seenTypes = new Set<string>();
  const pairs = hiddenFrom(token).filter((entity) => {
    if (surface === 'mcp-2025') return true;
    if (seenTypes.has(entity.type)) return false;
    seenTypes.add(entity.type);
    return true;
  });
  for (const hidden of pairs) {
    const tools =
      hidden.type === 'request' ? REQUEST_TOOLS : hidden.type === 'network' ? {} : ID_TOOLS;
    const missingId = hidden.type === 'request' ? MISSING_REQUEST : `${hidden.id}-gone`;
    for (const [name, args] of Object.entries(tools)) {
      if (surface === 'rest' && !READ_TOOLS.has(name)) continue;
      const answer = await call(name, args(hidden.id));
      checkLeaks(token, `${surface} ${token} ${name} hidden ${hidden.id}`, answer, args(hidden.id));
      checkAbsent(
        `${surface} ${token} ${name} ${hidden.id} vs missing`,
        { id: hidden.id, answer },
        { id: missingId, answer: await call(name, args(missingId)) },
      );
    }
  }
};

// ---- setup ----------------------------------------------------------------------------------

const seedRequestsAndNetwork = async (): Promise<void> => {
  const call = await toolCaller('mcp-2025', 'all');
  for (const p of PRODUCTS) {
    const title = `${p} request kestrel title`;
    const requester = `${p}-requester-marker`;
    const args = {
      title,
      problem: `${p} request problem marker: auditors cannot export the log today.`,
      product: p,
      requester,
      acceptance_criteria: ['The export contains every event of the month'],
    };
    const answer = await call('request_intake', args);
    expect(answer.ok, JSON.stringify(answer.payload)).toBe(true);
    const id = (answer.payload as { structuredContent: { request_id: string } }).structuredContent
      .request_id;
    universe.push({
      uri: `cogitave://request/${id}`,
      type: 'request',
      product: p,
      id,
      secrets: [id, title, `${p} request problem marker`, requester],
    });
  }
  const steps: [string, Record<string, unknown>][] = [
    [
      'network_create',
      { network_name: 'falcon_net', description: 'falcon network secret description' },
    ],
    ['network_add_node', { network_name: 'falcon_net', node_id: 'falcon-node-a' }],
    ['network_add_node', { network_name: 'falcon_net', node_id: 'falcon-node-b' }],
    [
      'network_add_edge',
      { network_name: 'falcon_net', source: 'falcon-node-a', target: 'falcon-node-b' },
    ],
  ];
  for (const [name, args] of steps) {
    const answer = await call(name, args);
    expect(answer.ok, `${name}: ${JSON.stringify(answer.payload)}`).toBe(true);
  }
  universe.push({
    uri: 'cogitave://network/falcon_net',
    type: 'network',
    product: null,
    id: 'falcon_net',
    secrets: ['falcon_net', 'falcon network secret description', 'falcon-node-a', 'falcon-node-b'],
  });
};

beforeAll(async () => {
  db = await createThrowawayDatabase('grant_matrix');
  corpus = await makeCorpus({});
  await ingest(1);
  universe.push(...corpusFiles(1).entities);
  served = await startServe({ name: 'matrix', role: 'all', env: env(), readyTimeoutMs: 60_000 });
  // The catalog is read once the projections caught up: wait for the last node to show.
  const call = await toolCaller('mcp-2025', 'all');
  const deadline = Date.now() + 30_000;
  while (!(await call('docs_fetch', { uid: 'common-doc' })).ok) {
    if (Date.now() > deadline) throw new Error('the catalog was not projected');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await seedRequestsAndNetwork();
}, 180_000);

afterAll(async () => {
  for (const { close } of clients.values()) await close().catch(() => undefined);
  await served.process.stop();
  await corpus.cleanup();
  await db.drop();
}, 60_000);

// ---- the matrix -----------------------------------------------------------------------------

describe.each(['mcp-2025', 'mcp-2026', 'rest'] as const)('tools over %s', (surface) => {
  it.concurrent.for(TOKEN_NAMES)(
    'token %s: no answer names anything outside the grant; hidden ids read as missing',
    { timeout: 120_000 },
    async (token: TokenName, { expect }) => {
      await runToolMatrix(surface, token);
      expect(failuresOf(`${surface} ${token} `), report()).toEqual([]);
    },
  );
});

const RESOURCE_TYPES = [
  'doc',
  'article',
  'unit',
  'module',
  'learning-path',
  'adr',
  'skill',
  'code-sample',
  'request',
  'network',
];

const outcome = async (run: () => Promise<unknown>): Promise<Answer> => {
  try {
    return { ok: true, payload: await run() };
  } catch (error) {
    return {
      ok: false,
      payload: { error: (error as Error).message, code: (error as { code?: unknown }).code },
    };
  }
};

/** The (uri, contentHash) entries of a resources/list result or a collection read. */
const listedHashes = (listing: Answer): { uri: string; hash: string | undefined }[] => {
  if (!listing.ok) return [];
  const payload = listing.payload as {
    resources?: { uri: string; _meta?: { contentHash?: string } }[];
    contents?: { text?: string }[];
  };
  return (
    payload.resources?.map((entry) => ({ uri: entry.uri, hash: entry._meta?.contentHash })) ??
    (
      JSON.parse(payload.contents?.[0]?.text ?? '{"items":[]}') as {
        items: { uri: string; contentHash: string }[];
      }
    ).items.map((item) => ({ uri: item.uri, hash: item.contentHash }))
  );
};

/**
 * Cases: the `contentHash` a listing (resources/list, a collection read) gives each entry is
 * the hash `resources/read` gives the document the same token reads. A restricted token reads
 * a node without its edges outside the grant, so a hash of the whole document would differ
 * (and tell it that hidden edges exist). The index and a read model are two projections, so
 * a mismatch is asked again for a while before it counts: a lag passes, a wrong hash stays.
 */
const checkHashesAgree = async (
  token: TokenName,
  client: LegacyClient,
  list: () => Promise<Answer>,
): Promise<void> => {
  for (const { uri } of listedHashes(await list())) {
    cases += 1;
    let last = '';
    const agreed = await (async () => {
      for (let attempt = 0; attempt < 40; attempt += 1) {
        const listed = listedHashes(await list()).find((entry) => entry.uri === uri)?.hash;
        const read = await outcome(() => client.readResource({ uri }));
        const served = (read.payload as { _meta?: { contentHash?: string } })._meta?.contentHash;
        if (read.ok && served === listed) return true;
        last = `listed ${String(listed)}, read ${String(served)}`;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return false;
    })();
    if (!agreed) failures.push({ where: `resources ${token} hash ${uri}`, problem: last });
  }
};

describe('resources', () => {
  it.concurrent.for(TOKEN_NAMES)(
    'token %s: list, templates, read and completions show only the grant; hidden URIs read as missing',
    { timeout: 120_000 },
    async (token: TokenName, { expect }) => {
      const client = await connectLegacy(token);
      try {
        const list = () => outcome(() => client.listResources());
        checkLeaks(token, `resources ${token} list`, await list());
        await checkHashesAgree(token, client, list);
        checkLeaks(
          token,
          `resources ${token} templates`,
          await outcome(() => client.listResourceTemplates()),
        );
        for (const type of RESOURCE_TYPES) {
          const collection = () =>
            outcome(() => client.readResource({ uri: `cogitave://${type}/` }));
          checkLeaks(token, `resources ${token} read collection ${type}`, await collection());
          await checkHashesAgree(token, client, collection);
          for (const value of ['', 'alpha', 'beta', 'falcon']) {
            checkLeaks(
              token,
              `resources ${token} complete ${type} "${value}"`,
              await outcome(() =>
                client.complete({
                  ref: { type: 'ref/resource', uri: `cogitave://${type}/{id}` },
                  argument: { name: 'id', value },
                }),
              ),
            );
          }
        }
        for (const entity of universe) {
          const answer = await outcome(() => client.readResource({ uri: entity.uri }));
          checkLeaks(token, `resources ${token} read ${entity.uri}`, answer, entity.uri);
          if (!mayRead(TOKENS[token], entity)) {
            const missing = `${entity.uri}-gone`;
            checkAbsent(
              `resources ${token} read ${entity.uri} vs missing`,
              { id: entity.id, answer },
              {
                id: `${entity.id}-gone`,
                answer: await outcome(() => client.readResource({ uri: missing })),
              },
            );
          }
        }
      } finally {
        await client.close();
      }
      expect(failuresOf(`resources ${token} `), report()).toEqual([]);
    },
  );
});

describe('shared nodes (no product)', () => {
  // The rule in services/access/grants.ts: a node without a product is shared documentation,
  // read by every token granted its type, product-restricted or not.
  it.concurrent.for(TOKEN_NAMES)(
    'token %s: the node without a product is read, listed, searched and matched like its own',
    { timeout: 60_000 },
    async (token: TokenName, { expect }) => {
      const call = await toolCaller('mcp-2025', token);
      const fetched = await call('docs_fetch', { uid: 'common-doc' });
      const matched = await call('query_graph', {
        query: "MATCH (d:Doc {uid: 'common-doc'}) RETURN d.title",
      });
      const related = await call('get_related', { uid: 'alpha-doc' });
      const client = await connectLegacy(token);
      try {
        const read = await outcome(() => client.readResource({ uri: 'cogitave://doc/common-doc' }));
        const listed = await outcome(() => client.readResource({ uri: 'cogitave://doc/' }));
        for (const [where, answer] of [
          ['docs_fetch', fetched],
          ['query_graph', matched],
          ['get_related alpha-doc', related],
          ['resources/read', read],
          ['collection read', listed],
        ] as const) {
          cases += 1;
          if (!answer.ok || !JSON.stringify(answer.payload).includes('common-doc'))
            failures.push({
              where: `shared ${token} ${where}`,
              problem: `common-doc not served: ${JSON.stringify(answer.payload).slice(0, 200)}`,
            });
        }
      } finally {
        await client.close();
      }
      expect(failuresOf(`shared ${token} `), report()).toEqual([]);
    },
  );
});

describe('llms.txt', () => {
  it('names no seeded uid, title or text', async () => {
    const before = failures.length;
    const text = await (await fetch(`${served.url}/llms.txt`)).text();
    cases += 1;
    const all = universe
      .flatMap((entity) => entity.secrets)
      .filter((secret) => text.includes(secret));
    if (all.length > 0) failures.push({ where: 'llms.txt', problem: `names ${all.join(', ')}` });
    expect(failures.slice(before), report()).toEqual([]);
  });
});

describe('notifications', () => {
  it('given every token subscribed (2025-11-25) and listening (2026-07-28), when other products change, then none hears of them; when its own change, it does', async () => {
    const before = failures.length;
    const heard = new Map<string, string[]>();
    const closers: (() => Promise<void>)[] = [];
    const follow = universe.map((entity) => entity.uri);
    for (const token of TOKEN_NAMES) {
      const scope = TOKENS[token];
      const collections = RESOURCE_TYPES.filter(
        (type) => scope.types === '*' || scope.types.includes(type),
      ).map((type) => `cogitave://${type}/`);
      const legacy = await connectLegacy(token);
      const legacyHeard: string[] = [];
      heard.set(`2025 ${token}`, legacyHeard);
      legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
        legacyHeard.push(note.params.uri);
        return Promise.resolve();
      });
      legacy.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        legacyHeard.push('list_changed');
        return Promise.resolve();
      });
      for (const uri of [...collections, ...follow]) {
        const subscribed = await outcome(() => legacy.subscribeResource({ uri }));
        checkLeaks(token, `subscribe ${uri} ${token}`, subscribed, uri);
        const entity = universe.find((candidate) => candidate.uri === uri);
        if (
          entity &&
          !mayRead(scope, entity) &&
          (scope.types === '*' || scope.types.includes(entity.type))
        ) {
          checkAbsent(
            `subscribe ${uri} ${token} vs missing`,
            { id: entity.id, answer: subscribed },
            {
              id: `${entity.id}-gone`,
              answer: await outcome(() => legacy.subscribeResource({ uri: `${uri}-gone` })),
            },
          );
        }
      }
      closers.push(() => legacy.close());

      const modern = await connectModern(token);
      const modernHeard: string[] = [];
      heard.set(`2026 ${token}`, modernHeard);
      modern.setNotificationHandler('notifications/resources/updated', (note) => {
        modernHeard.push(note.params.uri);
      });
      modern.setNotificationHandler('notifications/resources/list_changed', () => {
        modernHeard.push('list_changed');
      });
      const readable = follow.filter((uri) => {
        const type = /^cogitave:\/\/([^/]+)\//.exec(uri)?.[1] ?? '';
        return scope.types === '*' || scope.types.includes(type);
      });
      const listen = await modern.listen({
        resourceSubscriptions: [...collections, ...readable],
        resourcesListChanged: true,
      });
      closers.push(async () => {
        await listen.close();
        await modern.close();
      });
    }
    try {
      // Only beta changes: a beta request, beta catalog nodes.
      const call = await toolCaller('mcp-2025', 'all');
      const beta = await call('request_intake', {
        title: 'beta notified request heron',
        problem: 'beta notified problem marker: nobody outside beta may hear of this.',
        product: 'beta',
        requester: 'beta-notified-requester',
        acceptance_criteria: ['The notification reaches beta readers only'],
      });
      const betaId = (beta.payload as { structuredContent: { request_id: string } })
        .structuredContent.request_id;
      universe.push({
        uri: `cogitave://request/${betaId}`,
        type: 'request',
        product: 'beta',
        id: betaId,
        secrets: [betaId, 'beta notified request heron', 'beta-notified-requester'],
      });
      await ingest(2);
      // Then a change every token with the network type may read: the marker that the others arrived.
      await call('network_add_node', { network_name: 'falcon_net', node_id: 'falcon-node-c' });
      for (const token of TOKEN_NAMES) {
        const scope = TOKENS[token];
        const marker =
          scope.types === '*' || scope.types.includes('network')
            ? 'cogitave://network/falcon_net'
            : 'cogitave://doc/';
        for (const era of ['2025', '2026']) {
          const log = heard.get(`${era} ${token}`) ?? [];
          await eventually(() => log.includes(marker), `${era} ${token} hears ${marker}`, 20_000);
        }
      }
      for (const [who, log] of heard) {
        const token = who.split(' ')[1] as TokenName;
        const scope = TOKENS[token];
        for (const uri of log) {
          cases += 1;
          const entity = universe.find((candidate) => candidate.uri === uri);
          if (entity && !mayRead(scope, entity))
            failures.push({ where: `notification ${who}`, problem: `heard ${uri}` });
        }
        // The product-restricted token follows the request and adr collections: only beta changed.
        if (token === 'product') {
          for (const uri of ['cogitave://request/', 'cogitave://adr/', 'list_changed']) {
            cases += 1;
            if (log.includes(uri))
              failures.push({
                where: `notification ${who}`,
                problem: `heard ${uri} for a beta change`,
              });
          }
        }
        checkLeaks(token, `notifications ${who}`, log, follow);
      }
    } finally {
      for (const close of closers) await close().catch(() => undefined);
    }
    expect(failures.slice(before), report()).toEqual([]);
  }, 180_000);
});

describe('the whole matrix', () => {
  it('reports its size', () => {
    console.error(`grant matrix: ${String(cases)} cases, ${String(failures.length)} failed`);
    expect(cases).toBeGreaterThan(500);
  });
});
