import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRoute } from './http/server.js';
import type { ToolDefinition } from './registry.js';
import { OPENAPI_PATH, restPath } from './rest/openapi.js';
import {
  propertiesOf,
  requiredOf,
  schemaTypes,
  toolSchemas,
  type JsonSchema,
} from './rest/schemas.js';
import { ALL_TOOLS } from './tools/index.js';

/**
 * `/llms.txt` (llmstxt.org): what the product is, how to connect, and every tool with its
 * description and arguments, generated from the registry like the MCP tool list and the REST
 * surface. Read tools link to their REST operation; the others to the MCP endpoint.
 */

export const LLMS_PATH = '/llms.txt';

export interface LlmsOptions {
  /** Default: ALL_TOOLS. */
  readonly tools?: readonly ToolDefinition[];
  /** Absolute base URL for links; default: derived from the request's Host header. */
  readonly baseUrl?: string;
  /** Path of the Streamable HTTP MCP endpoint (default `/mcp`). */
  readonly mcpPath?: string;
  /** The command that serves MCP on stdio (default `cogitave serve --stdio`). */
  readonly stdioCommand?: string;
}

const typeLabel = (schema: JsonSchema): string => {
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map(String).join(' | ');
  const types = schemaTypes(schema);
  if (types.includes('array')) {
    const items = schemaTypes(schema.items);
    return `${items.join(' | ') || 'value'}[]`;
  }
  return types.join(' | ') || 'any';
};

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

const argumentLines = (tool: ToolDefinition): string[] => {
  const input = toolSchemas(tool).input;
  const required = new Set(requiredOf(input));
  const properties = Object.entries(propertiesOf(input));
  if (properties.length === 0) return ['  - Arguments: none'];
  return [
    '  - Arguments:',
    ...properties.map(([name, schema]) => {
      const description =
        typeof schema.description === 'string' ? ` — ${oneLine(schema.description)}` : '';
      return `    - \`${name}\` (${typeLabel(schema)}, ${required.has(name) ? 'required' : 'optional'})${description}`;
    }),
  ];
};

export const renderLlmsTxt = (options: LlmsOptions & { readonly baseUrl: string }): string => {
  const tools = options.tools ?? ALL_TOOLS;
  const base = options.baseUrl.replace(/\/+$/, '');
  const mcpUrl = `${base}${options.mcpPath ?? '/mcp'}`;
  const stdio = options.stdioCommand ?? 'cogitave serve --stdio';
  const read = tools.filter((tool) => tool.access === 'read');
  const write = tools.filter((tool) => tool.access !== 'read');
  const entry = (tool: ToolDefinition, url: string): string[] => [
    `- [${tool.name}](${url}): ${oneLine(tool.title)}. ${oneLine(tool.description)}`,
    ...argumentLines(tool),
  ];
  return [
    '# Cogitave Core',
    '',
    '> An event-sourced request-lifecycle platform whose canonical surface is the Model Context Protocol (MCP). Agents read a typed knowledge graph (docs, articles, units, modules, learning paths, ADRs) and propose work — a new request, or a stage change of one. Proposals are events; nothing protected changes until a maintainer approves it on GitHub.',
    '',
    'How to connect:',
    '',
    `- MCP over Streamable HTTP: \`${mcpUrl}\` (protocol revisions 2025-11-25 and 2026-07-28; send \`Authorization: Bearer <token>\` when the server requires it).`,
    `- MCP over stdio: run \`${stdio}\` as the server command of your MCP client.`,
    `- Read tools over plain HTTP: \`GET ${base}/api/tools/{name}?arg=value\` or \`POST\` a JSON body of arguments; OpenAPI 3.1 description at ${base}${OPENAPI_PATH}. Arrays as repeated parameters or comma lists, objects as JSON.`,
    '',
    'Tool arguments are snake_case; results carry `structuredContent` matching each tool’s output schema. Bad input, unknown ids and refused proposals come back as tool errors (`isError: true`) with a message saying what to change; a refused proposal changes nothing.',
    '',
    '## Read tools (MCP and REST)',
    '',
    ...read.flatMap((tool) => entry(tool, `${base}${restPath(tool)}`)),
    '',
    '## Tools that propose or write (MCP only)',
    '',
    ...write.flatMap((tool) => entry(tool, mcpUrl)),
    '',
    '## Optional',
    '',
    `- [OpenAPI description](${base}${OPENAPI_PATH}): the REST operations of the read tools with their JSON Schemas.`,
    '',
  ].join('\n');
};

// Only a plain host[:port] is echoed into links; anything else falls back to localhost.
const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

const baseUrlOf = (req: IncomingMessage, configured?: string): string => {
  if (configured) return configured;
  const host = req.headers.host ?? '';
  return `http://${HOST.test(host) ? host : 'localhost'}`;
};

/** `GET /llms.txt` as an exact-path route for `startHttpServer({ routes })`. */
export const createLlmsTxtRoute = (options: LlmsOptions = {}): HttpRoute => ({
  path: LLMS_PATH,
  handle: (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${LLMS_PATH} answers GET.\n`);
      return Promise.resolve();
    }
    const body = renderLlmsTxt({ ...options, baseUrl: baseUrlOf(req, options.baseUrl) });
    res.writeHead(200, {
      'content-type': 'text/markdown; charset=utf-8',
      'cache-control': 'public, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return Promise.resolve();
  },
});
