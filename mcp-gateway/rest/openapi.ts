import type { ToolDefinition } from '../registry.js';
import { propertiesOf, requiredOf, schemaTypes, toolSchemas, type JsonSchema } from './schemas.js';

/**
 * The OpenAPI 3.1 description of the read-only REST surface, generated from the registry: one
 * path per read tool, answering GET (arguments as query parameters) and POST (arguments as a
 * JSON body) with the tool's structured result, and problem documents for errors.
 */

export const REST_PREFIX = '/api/tools/';
export const OPENAPI_PATH = '/api/openapi.json';

export interface OpenApiOptions {
  readonly title?: string;
  readonly version: string;
  /** Absolute base URL of the server, when known (the document is valid without it). */
  readonly serverUrl?: string;
}

const SCHEMAS = '#/components/schemas/';

/** The read tools, i.e. what the REST surface serves. */
export const readTools = (tools: readonly ToolDefinition[]): ToolDefinition[] =>
  tools.filter((tool) => tool.access === 'read');

export const restPath = (tool: ToolDefinition): string => `${REST_PREFIX}${tool.name}`;

const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem document.',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: {
      type: 'string',
      description:
        'The coded error, as MCP tool errors report it: INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, FAILED_PRECONDITION, UNAVAILABLE, ...',
    },
    instance: { type: 'string' },
    details: { type: 'object', description: 'The error’s facts as data.' },
  },
  required: ['type', 'title', 'status', 'detail'],
};

const ERROR_RESPONSES: Readonly<Record<string, string>> = {
  '400': 'Invalid arguments: the detail names each one and what it must be.',
  '401': 'No or unknown bearer token.',
  '403': 'The token’s grants do not cover this.',
  '404': 'Unknown id.',
  '409': 'The current state refuses it.',
  '500': 'Unexpected failure.',
  '503': 'A dependency is unavailable; retry later.',
};

const queryParameters = (input: JsonSchema): JsonSchema[] => {
  const required = new Set(requiredOf(input));
  return Object.entries(propertiesOf(input)).map(([name, schema]) => {
    const types = schemaTypes(schema);
    const description = typeof schema.description === 'string' ? schema.description : undefined;
    const base = {
      name,
      in: 'query',
      required: required.has(name),
      ...(description ? { description } : {}),
    };
    // Objects travel as JSON text; arrays as repeated parameters (comma lists also accepted).
    if (types.includes('object') && !types.includes('string')) {
      return { ...base, content: { 'application/json': { schema } } };
    }
    return types.includes('array')
      ? { ...base, style: 'form', explode: true, schema }
      : { ...base, schema };
  });
};

const responses = (name: string): JsonSchema => ({
  '200': {
    description: `The structured result of ${name}.`,
    content: { 'application/json': { schema: { $ref: `${SCHEMAS}${name}_output` } } },
  },
  ...Object.fromEntries(
    Object.keys(ERROR_RESPONSES).map((status) => [
      status,
      { $ref: `#/components/responses/Problem${status}` },
    ]),
  ),
});

export const buildOpenApiDocument = (
  tools: readonly ToolDefinition[],
  options: OpenApiOptions,
): JsonSchema => {
  const schemas: Record<string, JsonSchema> = { Problem: problemSchema };
  const paths: Record<string, JsonSchema> = {};
  for (const tool of readTools(tools)) {
    const { input, output, defs } = toolSchemas(tool, SCHEMAS);
    Object.assign(schemas, defs, {
      [`${tool.name}_input`]: input,
      [`${tool.name}_output`]: output,
    });
    const common = { summary: tool.title, description: tool.description, tags: ['tools'] };
    paths[restPath(tool)] = {
      get: {
        ...common,
        operationId: tool.name,
        parameters: queryParameters(input),
        responses: responses(tool.name),
      },
      post: {
        ...common,
        operationId: `${tool.name}_post`,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `${SCHEMAS}${tool.name}_input` } } },
        },
        responses: responses(tool.name),
      },
    };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: options.title ?? 'Cogitave Core read API',
      version: options.version,
      summary: 'The read-only tools of the Cogitave Core MCP gateway, over plain HTTP.',
      description:
        'Every read tool of the MCP gateway, generated from the same registry: the same arguments (snake_case), the same structured results, errors as RFC 9457 problem documents with the same codes as MCP tool errors. Tools that propose or write are MCP-only.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [{ name: 'tools', description: 'Read tools of the MCP gateway.' }],
    paths,
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([status, description]) => [
          `Problem${status}`,
          {
            description,
            content: { 'application/problem+json': { schema: { $ref: `${SCHEMAS}Problem` } } },
          },
        ]),
      ),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }, {}],
  };
};
