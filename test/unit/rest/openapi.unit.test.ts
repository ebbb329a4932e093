import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../mcp-gateway/rest/openapi.js';
import { shapesTool, writeTool } from './fixtures.js';

interface Operation {
  operationId: string;
  parameters?: {
    name: string;
    required: boolean;
    style?: string;
    content?: unknown;
    schema?: unknown;
  }[];
}

describe('OpenAPI document from the registry', () => {
  const doc = buildOpenApiDocument([shapesTool, writeTool], { version: '1.2.3' }) as {
    paths: Record<string, Record<string, Operation>>;
    info: { version: string };
  };

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.info.version).toBe('1.2.3');
  });

  it('has GET and POST for read tools only', () => {
    expect(Object.keys(doc.paths)).toEqual(['/api/tools/shapes']);
    expect(doc.paths['/api/tools/shapes']?.get?.operationId).toBe('shapes');
    expect(doc.paths['/api/tools/shapes']?.post?.operationId).toBe('shapes_post');
  });

  it('describes arrays as repeated form parameters and objects as JSON content', () => {
    const params = doc.paths['/api/tools/shapes']?.get?.parameters ?? [];
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(byName.query).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(byName.types).toMatchObject({ required: false, style: 'form' });
    expect(byName.params?.content).toEqual({
      'application/json': { schema: expect.objectContaining({ type: 'object' }) as unknown },
    });
    expect(byName.params?.schema).toBeUndefined();
  });
});
