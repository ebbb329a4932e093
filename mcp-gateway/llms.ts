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
  /** Absolute base URL of links; served, the server's configured (or bound) URL. */
  readonly baseUrl?: string;
  /** The MCP endpoint's URL (default: `mcp` on the base URL). */
  readonly mcpUrl?: string;
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
  const mcpUrl = options.mcpUrl ?? `${base}/mcp`;
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

/**
 * `GET /llms.txt` as a route of the HTTP server; its links come from the server's configured
 * public URL (or its bound address), never from the request's Host header.
 */
export const createLlmsTxtRoute = (
  options: Omit<LlmsOptions, 'baseUrl' | 'mcpUrl'> = {},
): HttpRoute => ({
  path: LLMS_PATH,
  methods: ['GET'],
  handle: (req, res, context) => {
    const body = renderLlmsTxt({
      ...options,
      baseUrl: context.urls.base.href,
      mcpUrl: context.urls.mcp.href,
    });
    res.writeHead(200, {
      'content-type': 'text/markdown; charset=utf-8',
      'cache-control': 'public, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return Promise.resolve();
  },
});
