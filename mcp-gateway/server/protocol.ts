/* eslint-disable @typescript-eslint/no-deprecated --
 * The low-level Server, as factory.ts explains. */
import { randomUUID } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type Result,
  type ServerContext,
  type ServerOptions,
  type Transport,
} from '@modelcontextprotocol/server';
import { mapDatabaseError } from '../../services/database/transient.js';
import { isCogitaveError } from '../../services/runtime/errors.js';
import type { Logger } from '../../services/runtime/logger.js';

/** A JSON-RPC -32602: the request's parameters are wrong; the message says how. */
export const invalidParams = (message: string, data?: Record<string, unknown>): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, message, data);

interface Issue {
  readonly path?: readonly unknown[];
  readonly message?: unknown;
}

/**
 * The issues of a zod validation message (`String(zodError)` is the issues as JSON), or
 * undefined for any other message.
 */
const zodIssues = (message: string): Issue[] | undefined => {
  if (!message.trimStart().startsWith('[')) return undefined;
  try {
    const issues = JSON.parse(message) as unknown;
    return Array.isArray(issues) &&
      issues.length > 0 &&
      issues.every((issue) => typeof issue === 'object' && issue !== null && 'message' in issue)
      ? (issues as Issue[])
      : undefined;
  } catch {
    return undefined;
  }
};

const describeIssues = (issues: readonly Issue[]): string =>
  issues
    .map((issue) => {
      const path = (issue.path ?? []).map(String).filter((key) => key !== 'params');
      return `${path.length > 0 ? path.join('.') : '(params)'}: ${String(issue.message)}`;
    })
    .join('; ');

/**
 * What one request's failure becomes on the wire, so that every error carries the code the
 * specification names and nothing internal leaks:
 * - a `ProtocolError` passes unchanged;
 * - the SDK's own parameter validation, which in SDK 2.4 throws a plain `Error` carrying the zod
 *   issues as JSON (not a -32602), becomes -32602 with the issues in words;
 * - a coded refusal of ours (bad input, not found) is -32602 with its message;
 * - anything else (a database error, a bug) is -32603 with a correlation id in the server log.
 */
export const toProtocolError = (
  method: string,
  thrown: unknown,
  logger: Logger | undefined,
): ProtocolError => {
  if (thrown instanceof ProtocolError) return thrown;
  const error = mapDatabaseError(thrown);
  if (isCogitaveError(error)) {
    if (error.code === 'INVALID_ARGUMENT' || error.code === 'NOT_FOUND')
      return invalidParams(error.message);
    if (error.code === 'UNAVAILABLE')
      return new ProtocolError(ProtocolErrorCode.InternalError, error.message);
  }
  const issues = error instanceof Error ? zodIssues(error.message) : undefined;
  if (issues) return invalidParams(`Invalid params for ${method}: ${describeIssues(issues)}`);
  const correlationId = randomUUID();
  logger?.error({ err: error, method, correlationId }, 'MCP request failed');
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `internal error (correlation id ${correlationId}); the operator can find it in the server log`,
  );
};

/**
 * 2025-11-25 names "resource not found" -32002; SDK 2.4 answers it -32602 (the 2026-07-28 code)
 * on every revision, marking it by `data` holding exactly `{uri}`. On a 2025 connection that
 * error goes out as -32002.
 */
export const withLegacyErrorCodes = (message: JSONRPCMessage): JSONRPCMessage => {
  const invalidParamsCode: number = ProtocolErrorCode.InvalidParams;
  if (!('error' in message) || message.error.code !== invalidParamsCode) return message;
  const data: unknown = message.error.data;
  const onlyUri =
    typeof data === 'object' &&
    data !== null &&
    typeof (data as { uri?: unknown }).uri === 'string' &&
    Object.keys(data).length === 1;
  return onlyUri ? { ...message, error: { ...message.error, code: -32002 } } : message;
};

/**
 * The SDK's low-level `Server` with every request handler — ours and its built-in ones
 * (`logging/setLevel`) — answering errors through `toProtocolError`, and the 2025-11-25 error
 * codes on connections of that era.
 */
export class GatewayServer extends Server {
  readonly #logger: Logger | undefined;
  readonly #legacy: boolean;
  readonly #onNotification: ((method: string) => void) | undefined;

  constructor(
    info: ConstructorParameters<typeof Server>[0],
    options: ServerOptions,
    served: {
      readonly logger: Logger;
      readonly era: 'legacy' | 'modern';
      /** Told the method of every notification sent (for /metrics). */
      readonly onNotification?: (method: string) => void;
    },
  ) {
    super(info, options);
    this.#logger = served.logger;
    this.#legacy = served.era === 'legacy';
    this.#onNotification = served.onNotification;
  }

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ('method' in message && !('id' in message)) this.#onNotification?.(message.method);
      return send(this.#legacy ? withLegacyErrorCodes(message) : message, options);
    };
    await super.connect(transport);
  }

  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        // Built-in handlers are wrapped inside the constructor, before #logger is set; they
        // run later, when it is.
        throw toProtocolError(method, error, this.#logger);
      }
    };
  }
}
