import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBalancer, type Balancer } from '../../topology/balancer.js';

/**
 * The topology's sticky balancer in front of two stand-in gateways: a request carrying an
 * `Mcp-Session-Id` reaches the gateway that issued it; the rest spread round-robin; bodies and
 * streamed answers pass through unchanged.
 */
const backends: Server[] = [];
let balancer: Balancer;

const startBackend = async (name: string): Promise<string> => {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-backend': name,
      };
      if (req.headers['mcp-session-id'] === undefined)
        headers['mcp-session-id'] = `${name}-${randomUUID()}`;
      res.writeHead(200, headers);
      res.end(JSON.stringify({ backend: name, host: req.headers.host, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  backends.push(server);
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
};

beforeAll(async () => {
  const urls = [await startBackend('a'), await startBackend('b')];
  balancer = await startBalancer({ host: '127.0.0.1', port: 0, backends: urls });
});

afterAll(async () => {
  await balancer.close();
  for (const server of backends) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const post = async (headers: Record<string, string> = {}) => {
  const response = await fetch(`${balancer.url}/mcp`, { method: 'POST', headers, body: 'ping' });
  return {
    session: response.headers.get('mcp-session-id'),
    body: (await response.json()) as { backend: string; host: string; body: string },
  };
};

describe('sticky balancer', () => {
  it('given sessions issued by two gateways, when later requests carry their ids, then each reaches its own gateway; requests without one alternate', async () => {
    const first = await post();
    const second = await post();
    expect(new Set([first.body.backend, second.body.backend])).toEqual(new Set(['a', 'b']));
    expect(first.body.body).toBe('ping');
    expect(first.body.host).not.toBe(new URL(balancer.url).host);

    for (const opened of [first, second, first, second]) {
      const again = await post({ 'mcp-session-id': opened.session! });
      expect(again.body.backend).toBe(opened.body.backend);
    }
    const unknown = await post({ 'mcp-session-id': 'not-issued-here' });
    const repeat = await post({ 'mcp-session-id': 'not-issued-here' });
    expect(repeat.body.backend).toBe(unknown.body.backend);
  });
});
