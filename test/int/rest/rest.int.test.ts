import type { IncomingMessage } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  httpSettingsFromConfig,
  startHttpServer,
  type RunningHttpServer,
} from '../../../mcp-gateway/http/server.js';
import { createLlmsTxtRoute } from '../../../mcp-gateway/llms.js';
import { defineTool, type Caller } from '../../../mcp-gateway/registry.js';
import { createRestSurface, type RestSurface } from '../../../mcp-gateway/rest/routes.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { CogitaveError, Unavailable } from '../../../services/runtime/errors.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { AGENT, intakeArgs, openGatewayBed, type GatewayBed } from '../gateway-tools/harness.js';

/**
 * The read-only REST surface over real HTTP: given the gateway's services and requests, when
 * a client calls GET/POST /api/tools/{name}, then the tool's structured result — validated
 * against the operation's response schema in the generated OpenAPI 3.1 document — or an RFC
 * 9457 problem with the status of the error's code.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const READER: Caller = {
  actor: 'token:reader',
  grants: { products: '*', types: '*', propose: false, writeNetworks: false },
};
const DOCS_ONLY: Caller = { actor: 'token:docs', grants: { ...READER.grants, products: ['docs'] } };

const resolveCaller = (req: IncomingMessage): Caller | null => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (token === 'reader') return READER;
  if (token === 'docs') return DOCS_ONLY;
  if (token === 'agent') return AGENT;
  return null;
};

// Two read tools that fail on purpose: the 409 and 503 mappings need a refusal and an outage.
const refusingTool = defineTool({
  name: 'test_refuse',
  title: 'Refuses',
  description: 'Always refused by the current state.',
  input: z.strictObject({ outage: z.boolean().optional() }),
  output: z.object({ ok: z.boolean() }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  access: 'read',
  handler: (args) =>
    Promise.reject(
      args.outage
        ? new Unavailable('The read model is unavailable; retry in a few seconds.')
        : new CogitaveError('FAILED_PRECONDITION', 'The state refuses this.'),
    ),
  render: () => '',
});

let bed: GatewayBed;
let surface: RestSurface;
let running: RunningHttpServer;
let base: string;
let requestId: string;
let ajv: Ajv2020;

beforeAll(async () => {
  bed = await openGatewayBed('rest');
  const intake = await bed.call(
    ALL_TOOLS.find((t) => t.name === 'request_intake')!,
    intakeArgs(),
  );
  requestId = intake.request_id as string;
  await bed.caughtUp();
  surface = createRestSurface(bed.services, resolveCaller, {
    tools: [...ALL_TOOLS, refusingTool],
    version: '0.0.0-test',
    logger: createLogger('silent'),
  });
  // The process's HTTP server (its edge policy included): the surface answers its prefix,
  // llms.txt its exact path.
  running = await startHttpServer({
    ...httpSettingsFromConfig(loadConfig({ COGITAVE_HTTP_PORT: '0' })),
    logger: createLogger('silent'),
    readiness: [],
    routes: [...surface.routes, createLlmsTxtRoute()],
  });
  base = running.url;
  ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema(surface.openapi, 'openapi');
});

afterAll(async () => {
  await running.close();
  await bed.close();
});

interface Answer {
  status: number;
  type: string;
  body: Record<string, unknown>;
}

const request = async (
  path: string,
  init: { method?: string; token?: string | null; body?: string; type?: string } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = {};
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? 'reader'}`;
  if (init.body !== undefined) headers['content-type'] = init.type ?? 'application/json';
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
};

/** Validates an answer against the operation's response schema in the OpenAPI document. */
const conforms = (path: string, method: 'get' | 'post', answer: Answer): void => {
  const doc = surface.openapi as {
    paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
    components: { responses: Record<string, { content: Record<string, { schema: unknown }> }> };
  };
  const route = new URL(path, 'http://x').pathname;
  const response = doc.paths[route]?.[method]?.responses[String(answer.status)];
  expect(response, `${method} ${route} documents ${answer.status}`).toBeDefined();
  const ref = response?.$ref as string | undefined;
  const resolved = ref
    ? doc.components.responses[ref.split('/').at(-1)!]
    : (response as { content: Record<string, { schema: unknown }> });
  const mediaType = answer.status === 200 ? 'application/json' : 'application/problem+json';
  expect(answer.type).toContain(mediaType);
  const schema = resolved?.content[mediaType]?.schema as { $ref: string };
  const validate = ajv.getSchema(`openapi${schema.$ref}`);
  expect(validate, schema.$ref).toBeDefined();
  const valid = validate!(answer.body);
  expect(valid, JSON.stringify(validate!.errors)).toBe(true);
};

describe('OpenAPI document', () => {
  it('given the registry, then GET /api/openapi.json is a valid OpenAPI 3.1 document with one path per read tool', async () => {
    const answer = await request('/api/openapi.json', { token: null });
    expect(answer.status).toBe(200);
    const result = await new Validator().validate(answer.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(answer.body.openapi).toBe('3.1.0');

    const paths = Object.keys(answer.body.paths as object);
    const read = ALL_TOOLS.filter((tool) => tool.access === 'read').map((t) => t.name);
    for (const name of read) expect(paths).toContain(`/api/tools/${name}`);
    for (const tool of ALL_TOOLS.filter((t) => t.access !== 'read')) {
      expect(paths).not.toContain(`/api/tools/${tool.name}`);
    }
    expect(paths).toHaveLength(read.length + 1); // + the test's own refusing tool
  });

  it('given every read schema, then ajv 2020 compiles each operation schema', () => {
    const schemas = (surface.openapi as { components: { schemas: Record<string, unknown> } })
      .components.schemas;
    for (const name of Object.keys(schemas)) {
      expect(ajv.getSchema(`openapi#/components/schemas/${name}`), name).toBeDefined();
    }
    // The response check has teeth: a result of the wrong shape is refused.
    const listOutput = ajv.getSchema('openapi#/components/schemas/list_requests_output')!;
    expect(listOutput({ results: [{ request_id: 1 }], next_cursor: null })).toBe(false);
    expect(listOutput({ results: [] })).toBe(false);
    expect(listOutput({ results: [], next_cursor: null })).toBe(true);
  });
});

describe('GET and POST /api/tools/{name}', () => {
  it('given query parameters, then list_requests answers its structured result and pages with the cursor', async () => {
    await bed.call(
      ALL_TOOLS.find((t) => t.name === 'request_intake')!,
      intakeArgs('Second request for paging'),
    );
    await bed.caughtUp();
    const first = await request('/api/tools/list_requests?limit=1&status=draft');
    expect(first.status).toBe(200);
    conforms('/api/tools/list_requests', 'get', first);
    expect(first.body.results).toEqual([expect.objectContaining({ request_id: requestId })]);
    const cursor = first.body.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));

    const second = await request(
      `/api/tools/list_requests?limit=1&status=draft&cursor=${encodeURIComponent(cursor)}`,
    );
    expect(second.status).toBe(200);
    conforms('/api/tools/list_requests', 'get', second);
    expect((second.body.results as { request_id: string }[])[0]?.request_id).not.toBe(requestId);
  });

  it('given a JSON body, then POST answers the same result as GET', async () => {
    const post = await request('/api/tools/get_request', {
      method: 'POST',
      body: JSON.stringify({ request_id: requestId }),
    });
    expect(post.status).toBe(200);
    conforms('/api/tools/get_request', 'post', post);
    const get = await request(`/api/tools/get_request?request_id=${requestId}`);
    expect(get.body).toEqual(post.body);

    const dod = await request('/api/tools/get_dod', {
      method: 'POST',
      body: JSON.stringify({ request_id: requestId }),
    });
    expect(dod.status).toBe(200);
    conforms('/api/tools/get_dod', 'post', dod);
    expect(dod.body.current_stage).toBe('proposed');
  });

  it('given as_of in the query, then the request as it stood then', async () => {
    const now = await request(`/api/tools/get_request?request_id=${requestId}`);
    const first = (now.body.history as { position: string }[])[0]!;
    const then = await request(
      `/api/tools/get_request?request_id=${requestId}&as_of=${first.position}`,
    );
    expect(then.status).toBe(200);
    conforms('/api/tools/get_request', 'get', then);
    expect(then.body.source).toBe('event_stream');
  });

  it('given bad input, then 400 problems naming the argument', async () => {
    const limit = await request('/api/tools/list_requests?limit=many');
    expect(limit.status).toBe(400);
    conforms('/api/tools/list_requests', 'get', limit);
    expect(limit.body).toMatchObject({ code: 'INVALID_ARGUMENT', status: 400 });
    expect(limit.body.detail).toMatch(/limit/);

    const extra = await request('/api/tools/get_dod?colour=blue');
    expect(extra.status).toBe(400);
    expect(extra.body.detail).toMatch(/colour/);

    const json = await request('/api/tools/get_dod', { method: 'POST', body: '{not json' });
    expect(json.status).toBe(400);
    conforms('/api/tools/get_dod', 'post', json);

    const type = await request('/api/tools/get_dod', {
      method: 'POST',
      body: '{}',
      type: 'text/plain',
    });
    expect(type.status).toBe(415);
  });

  it('given an unknown id, one outside the grant or no token, then 404, the same 404 and 401', async () => {
    const unknown = await request('/api/tools/get_request?request_id=req-1999-0001', {
      token: 'docs',
    });
    expect(unknown.status).toBe(404);
    conforms('/api/tools/get_request', 'get', unknown);
    expect(unknown.body.code).toBe('NOT_FOUND');

    const hidden = await request(`/api/tools/get_request?request_id=${requestId}`, {
      token: 'docs',
    });
    expect(hidden.status).toBe(404);
    conforms('/api/tools/get_request', 'get', hidden);
    expect(JSON.stringify(hidden.body).replaceAll(requestId, '<id>')).toBe(
      JSON.stringify(unknown.body).replaceAll('req-1999-0001', '<id>'),
    );

    const anonymous = await request(`/api/tools/get_request?request_id=${requestId}`, {
      token: null,
    });
    expect(anonymous.status).toBe(401);
    conforms('/api/tools/get_request', 'get', anonymous);
  });

  it('given a refusing or unavailable read tool, then 409 and 503 with the same codes as MCP', async () => {
    const refused = await request('/api/tools/test_refuse');
    expect(refused.status).toBe(409);
    conforms('/api/tools/test_refuse', 'get', refused);
    expect(refused.body.code).toBe('FAILED_PRECONDITION');

    const outage = await request('/api/tools/test_refuse?outage=true');
    expect(outage.status).toBe(503);
    conforms('/api/tools/test_refuse', 'get', outage);
    expect(outage.body.detail).toMatch(/retry/);
  });

  it('given a tool that proposes, an unknown tool or another method, then 405/404 and nothing appended', async () => {
    const before = (await bed.events()).length;
    const intake = await request('/api/tools/request_intake', {
      method: 'POST',
      token: 'agent',
      body: JSON.stringify(intakeArgs('Sneaking in over REST')),
    });
    expect(intake.status).toBe(405);
    expect(intake.body.detail).toMatch(/MCP only/);
    const advance = await request(
      `/api/tools/advance_stage?request_id=${requestId}&to_stage=accepted`,
      { token: 'agent' },
    );
    expect(advance.status).toBe(405);
    expect((await bed.events()).length).toBe(before);

    expect((await request('/api/tools/no_such_tool')).status).toBe(404);
    const put = await request('/api/tools/list_requests', { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
  });
});

describe('mounted on the process HTTP server', () => {
  it('given the mounted routes, then tools, the OpenAPI document and llms.txt are served', async () => {
    const list = await fetch(`${running.url}/api/tools/list_requests?limit=1`, {
      headers: { authorization: 'Bearer reader' },
    });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { results: unknown[] }).results).toHaveLength(1);
    expect((await fetch(`${running.url}/api/openapi.json`)).status).toBe(200);
    const llms = await fetch(`${running.url}/llms.txt`);
    expect(llms.headers.get('content-type')).toContain('text/markdown');
    const text = await llms.text();
    for (const tool of ALL_TOOLS) expect(text).toContain(`[${tool.name}](`);
    expect(text).toContain(`${running.url}/api/tools/get_request`);
  });
});
