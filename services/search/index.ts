/** The search capability's public surface, for the composition root and the gateway. */
import type { Config } from '../runtime/config.js';
import type { Embedder } from './embedder.js';
import { createHttpEmbedder } from './http-embedder.js';
import { createLsaEmbedder } from './lsa.js';

export type { Embedder } from './embedder.js';
export { createHttpEmbedder } from './http-embedder.js';
export { createLsaEmbedder } from './lsa.js';
export {
  createSearchService,
  type CodeSampleHit,
  type DocsSearchQuery,
  type SearchHit,
  type SearchService,
} from './service.js';

/** The configured embedder: the OpenAI-compatible API when EMBEDDINGS_URL is set, else LSA. */
export const embedderFromConfig = (
  config: Pick<Config, 'embeddingsUrl' | 'embeddingsModel' | 'embeddingsApiKey'>,
): Embedder =>
  config.embeddingsUrl !== undefined && config.embeddingsModel !== undefined
    ? createHttpEmbedder({
        baseUrl: config.embeddingsUrl,
        model: config.embeddingsModel,
        apiKey: config.embeddingsApiKey,
      })
    : createLsaEmbedder();
