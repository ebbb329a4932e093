import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIALIZE_2025, MCP_POST_HEADERS } from '../../support/http.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { startGateway, tokenTable, waitForProjections, type GatewayUnderTest } from './support.js';
import { TOOL_SAMPLES } from './tool-samples.js';

/**
 * Bearer tokens with per-caller grants on /mcp: tokens are configured as sha256 hashes; no or
 * an unknown token is 401 with an RFC 9728 pointer; a call outside the grant is 403
 * insufficient_scope; reads are filtered to the granted types.
 */
const ADMIN = 'admin-token-7f3a';
const READER = 'reader-token-91c2';
let db: ThrowawayDatabase;
let gateway: GatewayUnderTest;

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_auth');
  gateway = await startGateway(db.url, {
    MCP_TOKENS: tokenTable({
      [ADMIN]: { name: 'admin', grants: { propose: true, writeNetworks: true } },
      [READER]: { name: 'reader', grants: { types: ['adr', 'doc'] } },
    }),
  });
});

afterAll(async () => {
  await gateway.close();
  await db.drop();
});

const connect = async (token: string) => {
  const client = new Client({ name: 'e2e-auth', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(gateway.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
};

const post = (body: object, headers: Record<string, string> = {}) =>
  fetch(gateway.mcpUrl, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, ...headers },
    body: JSON.stringify(body),
  });

const initializeBody = INITIALIZE_2025;

describe('bearer tokens', () => {
  it('given tokens are configured, when a request has no token or an unknown one, then 401 with WWW-Authenticate pointing at the protected-resource metadata', async () => {
    const missing = await post(initializeBody);
    expect(missing.status).toBe(401);
    const challenge = missing.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(
      `resource_metadata="${gateway.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    const wrong = await post(initializeBody, { authorization: 'Bearer not-a-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // The hash itself is not a token.
    const table = JSON.parse(tokenTable({ [ADMIN]: { name: 'admin', grants: {} } })) as Record<
      string,
      unknown
    >;
    const hashed = await post(initializeBody, {
      authorization: `Bearer ${Object.keys(table)[0] ?? ''}`,
    });
    expect(hashed.status).toBe(401);
  });

  it('given the RFC 9728 metadata paths, when fetched, then the resource and scopes are described', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: gateway.mcpUrl,
        bearer_methods_supported: ['header'],
        scopes_supported: ['read', 'propose', 'networks:write'],
      });
    }
  });

  it('given a reader token without the propose grant, when it calls request_intake, then 403 insufficient_scope naming the scope, and nothing is proposed', async () => {
    const { client, transport } = await connect(READER);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('request_intake');
      const denied = await post(
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'request_intake',
            arguments: TOOL_SAMPLES.request_intake?.args({ suffix: 'denied' }),
          },
        },
        {
          authorization: `Bearer ${READER}`,
          'mcp-session-id': transport.sessionId ?? '',
          'mcp-protocol-version': '2025-11-25',
        },
      );
      expect(denied.status).toBe(403);
      const challenge = denied.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="insufficient_scope"');
      expect(challenge).toContain('scope="propose"');
      // Reads of a type outside the grant are tool errors, not empty pages.
      const listed = (await client.callTool({ name: 'list_requests', arguments: {} })) as {
        isError?: boolean;
        content: unknown[];
      };
      expect(listed.isError).toBe(true);
      expect(JSON.stringify(listed.content)).toContain('request');
    } finally {
      await client.close();
    }
  });

  it('given an admin token, when it proposes a request, then the event is recorded as token:admin; a reader granted only adr and doc neither lists nor reads it', async () => {
    const admin = await connect(ADMIN);
    const reader = await connect(READER);
    try {
      const result = (await admin.client.callTool({
        name: 'request_intake',
        arguments: TOOL_SAMPLES.request_intake?.args({ suffix: 'admin' }) as Record<
          string,
          unknown
        >,
      })) as { isError?: boolean; structuredContent?: { request_id?: string } };
      expect(result.isError).toBeFalsy();
      const uri = `cogitave://request/${result.structuredContent?.request_id ?? ''}`;
      await waitForProjections([gateway.app]);
      const read = await admin.client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
        proposedBy: 'token:admin',
      });
      const adminList = await admin.client.listResources();
      expect(adminList.resources.map((resource) => resource.uri)).toContain(uri);
      const readerList = await reader.client.listResources();
      expect(readerList.resources.map((resource) => resource.uri)).not.toContain(uri);
      await expect(reader.client.readResource({ uri })).rejects.toThrow(/may not read request/);
      await expect(reader.client.subscribeResource({ uri })).rejects.toThrow(
        /may not read request/,
      );
      // A session belongs to the token that opened it.
      const hijack = await post(
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
        {
          authorization: `Bearer ${ADMIN}`,
          'mcp-session-id': reader.transport.sessionId ?? '',
          'mcp-protocol-version': '2025-11-25',
        },
      );
      expect(hijack.status).toBe(403);
    } finally {
      await admin.client.close();
      await reader.client.close();
    }
  });
});
