import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernCall, openRawSession, type JsonRpcAnswer } from '../../support/http.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { startGateway, type GatewayUnderTest } from './support.js';

/**
 * Exact JSON-RPC errors on both protocol revisions, over raw HTTP: every refusal carries the
 * code the specification names, with a message in words (never a zod dump, never a database
 * error), and bad tool input stays a tool result.
 */
let db: ThrowawayDatabase;
let gateway: GatewayUnderTest;
let legacy: Awaited<ReturnType<typeof openRawSession>>;

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_protocol');
  gateway = await startGateway(db.url);
  legacy = await openRawSession(gateway.mcpUrl);
});

afterAll(async () => {
  await gateway.close();
  await db.drop();
});

type Call = (method: string, params?: Record<string, unknown>) => Promise<JsonRpcAnswer>;
const eras: [string, () => Call][] = [
  ['2025-11-25', () => legacy.call],
  ['2026-07-28', () => (method, params) => modernCall(gateway.mcpUrl, method, params)],
];

const expectError = (answer: JsonRpcAnswer, code: number, words: RegExp): void => {
  expect(answer.error, JSON.stringify(answer)).toBeDefined();
  expect(answer.error?.code).toBe(code);
  expect(answer.error?.message).toMatch(words);
  // Words, not a dump of validation issues or of a database error.
  expect(answer.error?.message).not.toMatch(/"code":|invalid byte sequence|ZodError/);
};

describe.each(eras)('on %s', (era, callOf) => {
  it('given an unknown tool, when called, then -32602 (a protocol error, not a tool result)', async () => {
    expectError(
      await callOf()('tools/call', { name: 'no_such_tool', arguments: {} }),
      -32602,
      /Unknown tool "no_such_tool"/,
    );
  });

  it('given invalid params, when resources/read has no uri or completion/complete no argument, then -32602 naming the field', async () => {
    expectError(await callOf()('resources/read', {}), -32602, /uri/);
    expectError(
      await callOf()('completion/complete', {
        ref: { type: 'ref/resource', uri: 'cogitave://{type}/{id}' },
      }),
      -32602,
      /argument/,
    );
  });

  it('given a cursor on a list that has one page, when tools/list, prompts/list and resources/templates/list are called, then -32602; resources/list refuses a forged cursor too', async () => {
    for (const method of ['tools/list', 'prompts/list', 'resources/templates/list']) {
      expectError(await callOf()(method, { cursor: 'bogus' }), -32602, /Invalid cursor/);
    }
    expectError(await callOf()('resources/list', { cursor: 'bogus' }), -32602, /Invalid cursor/);
  });

  it('given URIs with NUL or other control characters, when read, then -32602 before any query', async () => {
    for (const uri of [
      'cogitave://doc/%00',
      'cogitave://doc/a\u0000b',
      'cogitave://doc/\u0007',
      'no-scheme',
    ]) {
      expectError(await callOf()('resources/read', { uri }), -32602, /URI/);
    }
  });

  it(`given a resource that does not exist, when read, then "resource not found" as ${era} names it`, async () => {
    const answer = await callOf()('resources/read', { uri: 'cogitave://doc/no.such.node' });
    expectError(answer, era === '2025-11-25' ? -32002 : -32602, /not found/);
    expect(answer.error?.data).toEqual({ uri: 'cogitave://doc/no.such.node' });
  });

  it('given tool arguments nested 40 levels deep, when called, then a tool error (isError), not a stack overflow', async () => {
    let nested: unknown = 'leaf';
    for (let i = 0; i < 40; i += 1) nested = { nested };
    const answer = await callOf()('tools/call', {
      name: 'query_graph',
      arguments: { query: 'MATCH (n) RETURN n', params: nested },
    });
    expect(answer.result?.isError).toBe(true);
    expect(JSON.stringify(answer.result?.content)).toContain('nested deeper than 32 levels');
  });
});

describe('2025-11-25 only', () => {
  it('given logging/setLevel with an unknown level, then -32602 naming the levels', async () => {
    expectError(await legacy.call('logging/setLevel', { level: 'verbose' }), -32602, /level/);
    expect((await legacy.call('logging/setLevel', { level: 'warning' })).result).toEqual({});
  });

  it('given resources/subscribe to a URI with NUL, then -32602 (it is not accepted)', async () => {
    for (const uri of ['cogitave://doc/%00', 'cogitave://doc/a\u0000b']) {
      expectError(await legacy.call('resources/subscribe', { uri }), -32602, /URI|cogitave:\/\//);
    }
  });
});

describe('2026-07-28 only', () => {
  it('given logging/setLevel or ping, which this revision removed, then -32601', async () => {
    for (const method of ['logging/setLevel', 'ping']) {
      const answer = await modernCall(
        gateway.mcpUrl,
        method,
        method === 'ping' ? {} : { level: 'info' },
      );
      expect(answer.error?.code, method).toBe(-32601);
    }
  });

  it('given server/discover, then tools.listChanged is not advertised (the list never changes)', async () => {
    const answer = await modernCall(gateway.mcpUrl, 'server/discover');
    expect(answer.result?.capabilities).toMatchObject({
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: true },
    });
  });
});
