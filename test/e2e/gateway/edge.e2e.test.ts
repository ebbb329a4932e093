import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenAuth } from '../../../mcp-gateway/auth/tokens.js';
import {
  httpSettingsFromConfig,
  startHttpServer,
  type HttpRoute,
  type RunningHttpServer,
} from '../../../mcp-gateway/http/server.js';
import { composeRole, type ServedRole } from '../../../bin/commands/serve/compose.js';
import { createApp, type App } from '../../../bin/app.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { INITIALIZE_2025, MCP_POST_HEADERS, rawRequest } from '../../support/http.js';

/**
 * The HTTP edge of a `serve --role gateway` process, over raw HTTP: one Host/Origin policy for
 * every mounted route (the list is read from the composition, so a route added later is covered
 * without editing this test), URLs from configuration only, CORS for configured origins, body
 * limits and timeouts a slow client cannot stretch.
 */
let db: ThrowawayDatabase;
const errors: string[] = [];
const started: { app: App; served: ServedRole; http: RunningHttpServer }[] = [];

const PUBLIC = 'https://mcp.example.com/mcp';
let publicServer: { served: ServedRole; http: RunningHttpServer };
let plainServer: { served: ServedRole; http: RunningHttpServer };

/** What `cogitave serve --role gateway` builds, with errors of the process captured. */
const serve = async (env: Record<string, string>) => {
  const config = loadConfig({ DATABASE_URL: db.url, CATALOG_DIR: 'none', ...env });
  const logger = pino(
    { level: 'error' },
    new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        errors.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
  const app = await createApp(config, logger);
  const served = await composeRole(app, 'gateway', {
    auth: createTokenAuth({}),
    authLabel: 'local',
    stdio: false,
  });
  const http = await startHttpServer({
    ...httpSettingsFromConfig({ ...config, httpPort: 0 }),
    logger,
    readiness: served.readiness,
    routes: served.routes,
    ...(served.metrics ? { metrics: served.metrics } : {}),
  });
  served.start();
  const entry = { app, served, http };
  started.push(entry);
  return entry;
};

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_edge');
  publicServer = await serve({
    MCP_PUBLIC_URL: PUBLIC,
    MCP_ALLOWED_ORIGINS: 'app.example',
    GITHUB_REPOSITORY: 'acme/widgets',
    GITHUB_TOKEN: 'not-used-by-the-gateway-role',
    GITHUB_WEBHOOK_SECRET: 'edge-test-secret',
    COGITAVE_HTTP_HEADERS_TIMEOUT_MS: '300',
    COGITAVE_HTTP_REQUEST_TIMEOUT_MS: '600',
  });
  plainServer = await serve({});
});

afterAll(async () => {
  for (const { app, served, http } of started.reverse()) {
    await served.drain();
    await http.close();
    await served.close();
    await app.close();
  }
  await db.drop();
});

/** A concrete path for each mounted route, plus the ops endpoints every process serves. */
const everyPath = (routes: readonly HttpRoute[]): string[] => [
  '/healthz',
  '/readyz',
  '/metrics',
  ...routes.map((route) =>
    route.prefix === true ? `${route.path}tools/list_requests` : route.path,
  ),
  '/no-such-route',
];

describe('one Host/Origin policy for every route', () => {
  it('given the attacker’s name as Host (DNS rebinding), when any route is called, then 403 — none answers with data', async () => {
    const { http, served } = publicServer;
    const paths = everyPath(served.routes);
    expect(paths).toEqual(
      expect.arrayContaining(['/mcp', '/llms.txt', '/webhooks/github', '/api/tools/list_requests']),
    );
    for (const path of paths) {
      const answer = await rawRequest(http.url, {
        path,
        headers: { host: 'attacker.example:3100', origin: 'http://attacker.example:3100' },
      });
      expect([path, answer.status]).toEqual([path, 403]);
      expect(answer.headers['content-type']).toContain('application/problem+json');
    }
  });

  it('given a foreign Origin with an allowed Host, when any route is called, then 403', async () => {
    const { http, served } = publicServer;
    for (const path of everyPath(served.routes)) {
      const answer = await rawRequest(http.url, {
        path,
        headers: { host: 'localhost', origin: 'https://evil.example' },
      });
      expect([path, answer.status]).toEqual([path, 403]);
    }
  });

  it('given a malformed Host, when /mcp and the others are called, then 400 and nothing is logged as an error', async () => {
    const { http, served } = plainServer;
    const before = errors.length;
    for (const host of ['localhost:99999', 'a b', '%', 'localhost:0']) {
      for (const path of everyPath(served.routes)) {
        const answer = await rawRequest(http.url, {
          method: path === '/mcp' ? 'POST' : 'GET',
          path,
          headers: { host, ...MCP_POST_HEADERS },
          body: path === '/mcp' ? JSON.stringify(INITIALIZE_2025) : '',
        });
        expect([host, path, answer.status]).toEqual([host, path, 400]);
      }
    }
    expect(errors.slice(before)).toEqual([]);
    expect(served.gateway).toBeDefined();
  });

  it('given probes and scrapers that address the process by IP, then the ops endpoints answer and /mcp still refuses', async () => {
    const { http } = plainServer;
    const host = '10.20.30.40:3100';
    expect((await rawRequest(http.url, { path: '/healthz', headers: { host } })).status).toBe(200);
    const metrics = await rawRequest(http.url, { path: '/metrics', headers: { host } });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('cogitave_http_responses_total{route="/healthz",status="200"}');
    expect((await rawRequest(http.url, { path: '/llms.txt', headers: { host } })).status).toBe(403);
  });

  it('given MCP_PUBLIC_URL, when GitHub delivers to the public host, then the webhook receiver answers (unsigned: 401), not the edge', async () => {
    const answer = await rawRequest(publicServer.http.url, {
      method: 'POST',
      path: '/webhooks/github',
      headers: { host: 'mcp.example.com', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toContain('X-Hub-Signature-256');
  });
});

describe('URLs come from configuration, never from the Host header', () => {
  it('given MCP_PUBLIC_URL, when llms.txt and the protected-resource metadata are read under another allowed Host, then they name the public URL', async () => {
    const { http } = publicServer;
    const llms = await rawRequest(http.url, {
      path: '/llms.txt',
      headers: { host: 'localhost:1' },
    });
    expect(llms.status).toBe(200);
    expect(llms.body).toContain(`\`${PUBLIC}\``);
    expect(llms.body).toContain('https://mcp.example.com/api/tools/get_request');
    expect(llms.body).not.toContain('localhost');
    const metadata = await rawRequest(http.url, {
      path: '/.well-known/oauth-protected-resource/mcp',
      headers: { host: '127.0.0.1' },
    });
    expect(JSON.parse(metadata.body)).toMatchObject({ resource: PUBLIC });
  });

  it('given no MCP_PUBLIC_URL, when llms.txt is read under another allowed Host, then its links name the bound address', async () => {
    const { http } = plainServer;
    const llms = await rawRequest(http.url, {
      path: '/llms.txt',
      headers: { host: 'localhost:1' },
    });
    expect(llms.body).toContain(`\`${http.url}/mcp\``);
    expect(llms.body).not.toContain('localhost:1');
  });
});

describe('CORS for the configured origins', () => {
  it('given MCP_ALLOWED_ORIGINS, when a browser preflights and then initializes, then the answers allow it and expose Mcp-Session-Id and MCP-Protocol-Version', async () => {
    const origin = 'https://app.example';
    const preflight = await fetch(`${publicServer.http.url}/mcp`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version, authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'content-type, mcp-protocol-version, authorization',
    );
    const init = await fetch(`${publicServer.http.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, origin },
      body: JSON.stringify(INITIALIZE_2025),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('access-control-allow-origin')).toBe(origin);
    expect(init.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    expect(init.headers.get('access-control-expose-headers')).toContain('MCP-Protocol-Version');
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    await init.body?.cancel();
  });

  it('given the default (localhost) origins, when a local page calls, then it passes the edge but gets no CORS grant', async () => {
    const answer = await fetch(`${plainServer.http.url}/llms.txt`, {
      headers: { origin: 'http://localhost:5173' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('body limits and timeouts', () => {
  it('given bodies over each route’s limit, when declared, then a readable 413 problem before the body is read', async () => {
    const { http } = plainServer;
    const cases: [string, string, number][] = [
      ['POST', '/mcp', 5 * 1024 * 1024],
      ['POST', '/api/tools/list_requests', 2 * 1024 * 1024],
      ['GET', '/healthz', 10],
    ];
    for (const [method, path, length] of cases) {
      const answer = await rawRequest(http.url, {
        method,
        path,
        headers: { ...MCP_POST_HEADERS, 'content-length': String(length) },
        body: '{',
        keepOpen: true,
      });
      expect([path, answer.status]).toEqual([path, 413]);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 413, title: 'Content Too Large' });
    }
  });

  it('given a client that sends part of its body and stalls, then it is answered 408 within the request timeout, not held for minutes', async () => {
    const startedAt = Date.now();
    const answer = await rawRequest(publicServer.http.url, {
      method: 'POST',
      path: '/mcp',
      headers: { host: 'localhost', ...MCP_POST_HEADERS, 'content-length': '1000' },
      body: '{"jsonrpc":',
      keepOpen: true,
    });
    expect(answer.status).toBe(408);
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });

  it('given a client that never finishes its headers, then the connection is closed within the headers timeout', async () => {
    const { createConnection } = await import('node:net');
    const url = new URL(publicServer.http.url);
    const startedAt = Date.now();
    const closed = await new Promise<string>((resolve) => {
      const socket = createConnection({ host: url.hostname, port: Number(url.port) }, () => {
        socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
      });
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('close', () => {
        resolve(received);
      });
    });
    expect(closed).toMatch(/^HTTP\/1.1 408/);
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });
});
