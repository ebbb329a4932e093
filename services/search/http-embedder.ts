import { z } from 'zod';
import { Unavailable } from '../runtime/errors.js';
import type { Secret } from '../runtime/config.js';
import type { Embedder, EmbeddingKind } from './embedder.js';

/**
 * An OpenAI-compatible embeddings API (`POST {baseUrl}/embeddings`): OpenAI itself, and the
 * local servers that copy its shape (Ollama, vLLM, llama.cpp, LM Studio, TEI). The key only
 * goes into the Authorization header; errors name the URL and status, never the key.
 */
export interface HttpEmbedderOptions {
  /** Base URL without the trailing `/embeddings` (`https://api.openai.com/v1`). */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: Secret | undefined;
  /** Texts per request (default 64). */
  readonly batchSize?: number;
  /** Per request (default 30 s). */
  readonly timeoutMs?: number;
  /** For tests and proxies; default the global fetch. */
  readonly fetch?: typeof fetch;
}

const responseSchema = z.object({
  data: z
    .array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) }))
    .min(1),
});

export const createHttpEmbedder = (options: HttpEmbedderOptions): Embedder => {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const batchSize = options.batchSize ?? 64;
  const request = options.fetch ?? fetch;

  const embedBatch = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey.reveal()}`;
    let response: Response;
    try {
      response = await request(url, {
        method: 'POST',
        headers,
        // Empty strings are refused by some servers; a space embeds as "nothing".
        body: JSON.stringify({
          model: options.model,
          input: texts.map((text) => (text.length > 0 ? text : ' ')),
          encoding_format: 'float',
        }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new Unavailable(`embeddings API at ${url} unreachable: ${(error as Error).message}`);
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      throw new Unavailable(
        `embeddings API at ${url} answered ${response.status}${detail ? `: ${detail}` : ''}`,
        { status: response.status },
      );
    }
    const parsed = responseSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success || parsed.data.data.length !== texts.length) {
      throw new Unavailable(
        `embeddings API at ${url} sent an unexpected body (want {data: [{index, embedding}]} with ${texts.length} items)`,
      );
    }
    const vectors = new Map<number, Float32Array>();
    for (const item of parsed.data.data) vectors.set(item.index, Float32Array.from(item.embedding));
    return texts.map((_, index) => {
      const vector = vectors.get(index);
      if (!vector) {
        throw new Unavailable(`embeddings API at ${url} sent no embedding for input ${index}`);
      }
      return vector;
    });
  };

  return {
    name: `http:${options.model}`,
    embed: async (texts: readonly string[], _kind: EmbeddingKind) => {
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        out.push(...(await embedBatch(texts.slice(start, start + batchSize))));
      }
      return out;
    },
  };
};
