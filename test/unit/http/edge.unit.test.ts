import { describe, expect, it } from 'vitest';
import {
  allowedHostsFor,
  corsPreflightHeaders,
  decideEdge,
  edgePolicyFromConfig,
  parseHostHeader,
  type EdgePolicy,
} from '../../../mcp-gateway/http/edge.js';
import { loadConfig } from '../../../services/runtime/config.js';

/** The one Host/Origin policy of every HTTP route, as a pure function of the headers. */
const LOCAL: EdgePolicy = edgePolicyFromConfig(loadConfig({}));

describe('parseHostHeader', () => {
  it.each([
    ['localhost:3100', 'localhost', 3100],
    ['LocalHost', 'localhost', undefined],
    ['127.0.0.1:1', '127.0.0.1', 1],
    ['[::1]:65535', '[::1]', 65_535],
    ['mcp.example.com.', 'mcp.example.com', undefined],
    ['gateway_1:3100', 'gateway_1', 3100],
  ])('given Host %s, then hostname %s and port %s', (value, hostname, port) => {
    expect(parseHostHeader(value)).toEqual({ hostname, port });
  });

  it.each([
    'localhost:99999',
    'localhost:0',
    'a b',
    '%',
    '',
    'host:',
    'user@host',
    'host/path',
    '[::g]',
    '[1:2]:80',
    '-bad.example',
  ])('given the malformed Host %j, then undefined', (value) => {
    expect(parseHostHeader(value)).toBeUndefined();
  });
});

describe('decideEdge', () => {
  const decide = (host: string | undefined, origin?: string, policy = LOCAL) =>
    decideEdge({ host, origin }, 'allowlist', policy);

  it('given a localhost Host and no Origin, then it passes without CORS', () => {
    expect(decide('localhost:3100')).toEqual({ kind: 'pass', corsOrigin: undefined });
  });

  it('given a missing or malformed Host, then 400 (not 403, not 500)', () => {
    for (const host of [undefined, 'localhost:99999', 'a b', '%']) {
      expect(decide(host)).toMatchObject({ kind: 'refuse', status: 400 });
    }
  });

  it("given the attacker's name as Host or Origin (DNS rebinding), then 403 naming the setting", () => {
    expect(decide('attacker.example:3100')).toMatchObject({
      kind: 'refuse',
      status: 403,
      detail: expect.stringContaining('MCP_ALLOWED_HOSTS') as unknown,
    });
    expect(decide('localhost:3100', 'http://attacker.example:3100')).toMatchObject({
      kind: 'refuse',
      status: 403,
      detail: expect.stringContaining('MCP_ALLOWED_ORIGINS') as unknown,
    });
    expect(decide('localhost:3100', 'null')).toMatchObject({ status: 403 });
  });

  it('given an IP literal Host, then only an allowlist-or-ip route (probes, scrapers) accepts it', () => {
    const headers = { host: '10.1.2.3:3100', origin: undefined };
    expect(decideEdge(headers, 'allowlist', LOCAL)).toMatchObject({ status: 403 });
    expect(decideEdge(headers, 'allowlist-or-ip', LOCAL)).toEqual({
      kind: 'pass',
      corsOrigin: undefined,
    });
    expect(
      decideEdge({ host: '[fd00::1]:3100', origin: undefined }, 'allowlist-or-ip', LOCAL),
    ).toMatchObject({ kind: 'pass' });
    // A name is never accepted that way.
    expect(
      decideEdge({ host: 'attacker.example', origin: undefined }, 'allowlist-or-ip', LOCAL),
    ).toMatchObject({ status: 403 });
  });

  it('given the localhost defaults, then a localhost Origin passes but gets no CORS; configured origins get CORS', () => {
    expect(decide('localhost', 'http://localhost:5173')).toEqual({
      kind: 'pass',
      corsOrigin: undefined,
    });
    const configured = edgePolicyFromConfig(loadConfig({ MCP_ALLOWED_ORIGINS: 'app.example' }));
    expect(decide('localhost', 'https://app.example', configured)).toEqual({
      kind: 'pass',
      corsOrigin: 'https://app.example',
    });
    expect(decide('localhost', 'http://localhost:5173', configured)).toMatchObject({
      status: 403,
    });
  });
});

describe('allowedHostsFor', () => {
  it('given a bind address and a public URL, then the localhost names, the bind and the public host', () => {
    expect(allowedHostsFor('10.0.0.7', 'https://MCP.example.com/mcp', undefined)).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      '10.0.0.7',
      'mcp.example.com',
    ]);
    expect(allowedHostsFor('::', undefined, undefined)).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
    ]);
  });

  it('given MCP_ALLOWED_HOSTS, then exactly those, plus the public host (webhooks arrive under it)', () => {
    expect(allowedHostsFor('0.0.0.0', 'https://hooks.example.com/mcp', ['gw.internal'])).toEqual([
      'gw.internal',
      'hooks.example.com',
    ]);
  });
});

describe('corsPreflightHeaders', () => {
  it("given requested headers, then MCP's own and Mcp-Param-* are allowed, others left out", () => {
    const headers = corsPreflightHeaders(
      'https://app.example',
      ['GET', 'POST', 'DELETE'],
      'Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Param-Region, X-Evil',
    );
    expect(headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers':
        'content-type, mcp-session-id, mcp-protocol-version, mcp-param-region',
    });
  });
});
