import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Unavailable } from '../../services/runtime/errors.js';
import type { Logger } from '../../services/runtime/logger.js';
import { noteRefusal, refusalOfDenied } from '../http/refusals.js';
import type { HttpRoute, RouteContext } from '../http/server.js';
import { runTool, type Caller, type ToolDefinition } from '../registry.js';
import { retryHint, waitForStartUp, type StartUpGate } from '../server/start-up-gate.js';
import type { GatewayServices } from '../services.js';
import { ALL_TOOLS } from '../tools/index.js';
import { toCogitaveError } from './invoke.js';
import { buildOpenApiDocument, OPENAPI_PATH, REST_PREFIX } from './openapi.js';
import { problem, problemOf, sendJson, sendProblem } from './problems.js';
import { argumentsFromQuery } from './query.js';
import { toolSchemas, type JsonSchema } from './schemas.js';

/**
 * The read-only REST surface, generated from the registry:
 * - `GET /api/tools/{name}?…` and `POST /api/tools/{name}` (JSON body) for every tool with
 *   `access: 'read'`, answering its structured result as JSON;
 * - `GET /api/openapi.json`, the OpenAPI 3.1 description of those operations.
 * Tools that propose or write answer 405 (they are MCP-only); unknown names 404. Errors are
 * RFC 9457 problem documents whose status follows the same error codes as MCP tool errors.
 *
 * Mounting: `routes` holds one prefix route on `/api/` for `startHttpServer({ routes })`, so
 * unknown tool names are answered here too, after the server's edge policy.
 */

/** Who is calling: null when the request carries no valid credentials (answered 401). */
export type CallerResolver = (req: IncomingMessage) => Promise<Caller | null> | Caller | null;

export interface RestSurfaceOptions {
  /** Default: ALL_TOOLS. */
  readonly tools?: readonly ToolDefinition[];
  /** Version in the OpenAPI document (the package's). */
  readonly version: string;
  readonly serverUrl?: string;
  readonly logger?: Logger;
  readonly now?: () => Date;
  readonly newId?: () => string;
  /** Largest accepted POST body (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * The process's start-up, as MCP waits for it: a call waits (bounded), then is answered 503
   * with Retry-After rather than from a catalog still being ingested.
   */
  readonly startUp?: StartUpGate;
}

export interface RestSurface {
  readonly routes: readonly HttpRoute[];
  readonly openapi: JsonSchema;
}

/** The surface answers every path below this one: tools, the document, unknown names. */
const REST_ROOT = '/api/';

class BodyProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const bodyArguments = async (req: IncomingMessage, context: RouteContext): Promise<unknown> => {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new BodyProblem(
      415,
      'POST a JSON object of arguments with content-type application/json.',
    );
  }
  const text = (await context.readBody()).toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BodyProblem(400, 'The body is not valid JSON: send the arguments as a JSON object.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BodyProblem(400, 'The body must be a JSON object of arguments, e.g. {"limit": 10}.');
  }
  return value;
};

export const createRestSurface = (
  services: GatewayServices,
  resolveCaller: CallerResolver,
  options: RestSurfaceOptions,
): RestSurface => {
  const tools = options.tools ?? ALL_TOOLS;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const inputSchemas = new Map(
    tools
      .filter((tool) => tool.access === 'read')
      .map((tool) => [tool.name, toolSchemas(tool).input]),
  );
  const openapi = buildOpenApiDocument(tools, {
    version: options.version,
    ...(options.serverUrl ? { serverUrl: options.serverUrl } : {}),
  });
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? randomUUID;

  const serveTool = async (
    tool: ToolDefinition,
    req: IncomingMessage,
    res: ServerResponse,
    context: RouteContext,
  ): Promise<void> => {
    const { url } = context;
    const instance = url.pathname;
    const caller = await resolveCaller(req);
    if (!caller) {
      noteRefusal(res, {
        reason: req.headers.authorization === undefined ? 'missing_token' : 'invalid_token',
      });
      sendProblem(
        res,
        problem(401, 'Send a bearer token: Authorization: Bearer <token>.', { instance }),
        { 'www-authenticate': 'Bearer' },
      );
      return;
    }
    noteRefusal(res, { actor: caller.actor });
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      const args =
        req.method === 'GET'
          ? argumentsFromQuery(url.searchParams, inputSchemas.get(tool.name) ?? {})
          : await bodyArguments(req, context);
      const starting = options.startUp
        ? await waitForStartUp(options.startUp, controller.signal, () => Promise.resolve())
        : undefined;
      if (starting) {
        sendProblem(
          res,
          problemOf(new Unavailable(starting.message, retryHint(starting)), instance),
          { 'retry-after': String(starting.retryAfterSeconds) },
        );
        return;
      }
      const result = await runTool(tool, args, {
        services,
        caller,
        signal: controller.signal,
        progress: () => Promise.resolve(),
        now,
        newId,
      });
      sendJson(res, 200, result);
    } catch (thrown) {
      // The client went away (while waiting for start-up, say): there is no one to answer.
      if (controller.signal.aborted) return;
      if (thrown instanceof BodyProblem) {
        sendProblem(res, problem(thrown.status, thrown.message, { instance }));
        return;
      }
      const error = toCogitaveError(thrown);
      if (error.code === 'PERMISSION_DENIED') noteRefusal(res, refusalOfDenied(error));
      if (error.code === 'INTERNAL') {
        options.logger?.error({ err: thrown, tool: tool.name }, 'REST tool call failed');
      }
      sendProblem(res, problemOf(error, instance));
    }
  };

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    context: RouteContext,
  ): Promise<void> => {
    const { path } = context;
    if (path === OPENAPI_PATH) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendProblem(res, problem(405, `${path} answers GET.`, { instance: path }), {
          allow: 'GET, HEAD',
        });
        return;
      }
      sendJson(res, 200, openapi);
      return;
    }
    const name = path.startsWith(REST_PREFIX) ? path.slice(REST_PREFIX.length) : '';
    const tool = byName.get(name);
    if (!tool) {
      sendProblem(
        res,
        problem(
          404,
          `No read tool "${name}". The REST surface serves ${[...inputSchemas.keys()].join(', ')}; see ${OPENAPI_PATH}.`,
          { instance: path },
        ),
      );
      return;
    }
    if (tool.access !== 'read') {
      sendProblem(
        res,
        problem(
          405,
          `${tool.name} proposes or writes, so it is served over MCP only (the REST surface is read-only).`,
          { instance: path },
        ),
        { allow: '' },
      );
      return;
    }
    await serveTool(tool, req, res, context);
  };

  return {
    routes: [
      { path: REST_ROOT, prefix: true, methods: ['GET', 'POST'], maxBodyBytes: maxBody, handle },
    ],
    openapi,
  };
};
