import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../services/runtime/config.js';
import { embedderFromConfig } from '../../../services/search/index.js';

describe('embedder settings', () => {
  it('given no embeddings URL, when configured, then the built-in corpus-derived embedder is used', () => {
    expect(embedderFromConfig(loadConfig({})).name).toBe('lsa-256');
  });

  it('given URL, model and key, when configured, then the HTTP embedder is used and the key stays hidden', () => {
    const config = loadConfig({
      EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1/',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_API_KEY: 'sk-secret-value',
    });
    expect(config.embeddingsUrl).toBe('http://127.0.0.1:11434/v1');
    expect(JSON.stringify(config)).not.toContain('sk-secret-value');
    expect(embedderFromConfig(config).name).toBe('http:nomic-embed-text');
  });

  it('given a URL without a model, when configured, then the problem names EMBEDDINGS_MODEL', () => {
    expect(() => loadConfig({ EMBEDDINGS_URL: 'https://api.example.com/v1' })).toThrow(
      /EMBEDDINGS_MODEL: required when EMBEDDINGS_URL is set/,
    );
  });

  it('given a bad URL, when configured, then the problem names EMBEDDINGS_URL', () => {
    expect(() => loadConfig({ EMBEDDINGS_URL: 'ftp://x', EMBEDDINGS_MODEL: 'm' })).toThrow(
      /EMBEDDINGS_URL: must be an http\(s\) URL/,
    );
  });
});
