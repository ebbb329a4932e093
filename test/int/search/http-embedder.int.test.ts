import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../../services/runtime/config.js';
import { createHttpEmbedder } from '../../../services/search/http-embedder.js';
import { createHybridRetriever } from '../../../services/search/retriever.js';

/**
 * A local double of the OpenAI embeddings API: it checks the request shape (method, path,
 * headers, body) the way the real API would refuse a wrong one, and answers with a
 * deterministic bag-of-letters vector, so similar texts get similar vectors.
 */
interface Recorded {
  readonly path: string | undefined;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

const KEY = 'sk-test-0123456789';

const vectorOf = (text: string): number[] => {
  const vector = new Array<number>(26).fill(0);
  for (const char of text.toLowerCase()) {
    const code = char.charCodeAt(0) - 97;
    if (code >= 0 && code < 26) vector[code] = (vector[code] ?? 0) + 1;
  }
  return vector;
};

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

describe('OpenAI-compatible HTTP embedder against a local double', () => {
  let server: Server;
  let baseUrl: string;
  const recorded: Recorded[] = [];
  let failNext: number | undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      void (async () => {
        const raw = await readBody(request);
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        recorded.push({ path: request.url, authorization: request.headers.authorization, body });
        const send = (status: number, payload: unknown): void => {
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(payload));
        };
        if (failNext !== undefined) {
          const status = failNext;
          failNext = undefined;
          send(status, { error: { message: 'Rate limit reached', type: 'requests' } });
          return;
        }
        const input = (body as { input?: unknown } | undefined)?.input;
        const valid =
          request.method === 'POST' &&
          request.url === '/v1/embeddings' &&
          request.headers['content-type'] === 'application/json' &&
          request.headers.authorization === `Bearer ${KEY}` &&
          typeof (body as { model?: unknown }).model === 'string' &&
          Array.isArray(input) &&
          input.length > 0 &&
          input.every((item) => typeof item === 'string' && item.length > 0);
        if (!valid) {
          send(400, { error: { message: 'invalid request', type: 'invalid_request_error' } });
          return;
        }
        // The real API may answer out of order; `index` says which input each vector is for.
        const data = (input as string[])
          .map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }))
          .reverse();
        send(200, {
          object: 'list',
          data,
          model: (body as { model: string }).model,
          usage: { prompt_tokens: 1, total_tokens: 1 },
        });
      })();
    });
    await new Promise<void>((resolve) => {
      server.listen(0, '127.0.0.1', resolve);
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  });

  it('given texts, when embedded, then the request has the OpenAI shape and vectors come back in input order', async () => {
    recorded.length = 0;
    const embedder = createHttpEmbedder({
      baseUrl: `${baseUrl}/`,
      model: 'text-embedding-3-small',
      apiKey: new Secret(KEY),
      batchSize: 2,
    });
    const vectors = await embedder.embed(['aa', 'b', ''], 'document');
    expect(vectors.map((vector) => [...vector].slice(0, 2))).toEqual([
      [2, 0],
      [0, 1],
      [0, 0],
    ]);
    expect(recorded).toHaveLength(2);
    expect(recorded[0]).toEqual({
      path: '/v1/embeddings',
      authorization: `Bearer ${KEY}`,
      body: { model: 'text-embedding-3-small', input: ['aa', 'b'], encoding_format: 'float' },
    });
    expect(embedder.name).toBe('http:text-embedding-3-small');
  });

  it('given the API refuses, when embedding, then UNAVAILABLE names URL and status but never the key', async () => {
    failNext = 429;
    const embedder = createHttpEmbedder({ baseUrl, model: 'm', apiKey: new Secret(KEY) });
    const failure = embedder.embed(['x'], 'query');
    await expect(failure).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(failure).rejects.toThrow(/\/v1\/embeddings answered 429/);
    await failure.catch((error: unknown) => {
      expect(JSON.stringify({ message: (error as Error).message })).not.toContain(KEY);
    });
  });

  it('given a wrong key, when embedding, then the double refuses the shape with 400', async () => {
    const embedder = createHttpEmbedder({ baseUrl, model: 'm', apiKey: new Secret('wrong') });
    await expect(embedder.embed(['x'], 'query')).rejects.toThrow(/answered 400/);
  });

  it('given the HTTP embedder in a retriever, when searching, then the vector component ranks by its vectors', async () => {
    const retriever = createHybridRetriever({
      embedder: createHttpEmbedder({ baseUrl, model: 'm', apiKey: new Secret(KEY) }),
    });
    await retriever.rebuild(
      [
        { id: 'x', fields: { title: 'zzz yyy', body: '' } },
        { id: 'y', fields: { title: 'aaa bbb', body: '' } },
      ],
      [],
    );
    const hits = await retriever.search({
      text: 'zyzy',
      limit: 2,
      components: { bm25: false, graph: false },
    });
    expect(hits[0]?.id).toBe('x');
    expect(hits[0]?.scores.vector).toBeGreaterThan(0.9);
  });
});
