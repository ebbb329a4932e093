import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  issueMessage,
  mcpTokenTableSchema,
  type Config,
  type McpTokenTable,
} from '../../services/runtime/config.js';
import { CogitaveError } from '../../services/runtime/errors.js';
import type { Caller } from '../registry.js';

/** How tokens are stored in configuration: sha256 (hex) of the token, never the token. */
export const hashToken = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

const readTokenFile = (path: string): McpTokenTable => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(resolve(path), 'utf8'));
  } catch (error) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `MCP_TOKENS_FILE: cannot read "${path}" as JSON (${(error as Error).message})`,
    );
  }
  const result = mcpTokenTableSchema.safeParse(parsed);
  if (!result.success) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `MCP_TOKENS_FILE: "${path}": ${result.error.issues.map((issue) => `${issue.path.join('.')}: ${issueMessage(issue)}`).join('; ')}`,
    );
  }
  return result.data;
};

/** The token table of MCP_TOKENS and MCP_TOKENS_FILE together (empty: local mode). */
export const loadTokenTable = (config: Config): McpTokenTable => ({
  ...(config.mcpTokensFile !== undefined ? readTokenFile(config.mcpTokensFile) : {}),
  ...(config.mcpTokens ?? {}),
});

export interface TokenAuth {
  /** False in local mode: no tokens configured, every request acts as `local`. */
  readonly enabled: boolean;
  /** The caller of a bearer token, or undefined when the header names no known token. */
  authenticate(authorization: string | null | undefined): Caller | undefined;
  /**
   * The caller of a token's sha256 (as the table keys it): a console session names its token
   * by hash, so revoking the token ends the session too.
   */
  callerOfHash(hash: string): Caller | undefined;
  /** The sha256 of every configured token (what the table keys; never a token). */
  readonly tokenHashes: readonly string[];
}

export const createTokenAuth = (table: McpTokenTable): TokenAuth => {
  const callers = new Map<string, Caller>(
    Object.entries(table).map(([hash, entry]) => [
      hash,
      { actor: `token:${entry.name}`, grants: entry.grants },
    ]),
  );
  return {
    enabled: callers.size > 0,
    authenticate: (authorization) => {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
      return match?.[1] === undefined ? undefined : callers.get(hashToken(match[1]));
    },
    callerOfHash: (hash) => callers.get(hash),
    tokenHashes: [...callers.keys()],
  };
};

/** Loopback binds may run without tokens; anything else would expose the graph to the network. */
export const isLoopbackHost = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);

/**
 * The local no-auth mode grants everything, so it is refused on a bind other hosts can reach:
 * a configuration error naming the variable to set.
 */
export const assertSafeBind = (host: string, auth: TokenAuth): void => {
  if (auth.enabled || isLoopbackHost(host)) return;
  throw new CogitaveError(
    'CONFIG_INVALID',
    `MCP_TOKENS: required when COGITAVE_HTTP_HOST (${host}) is not a loopback address; without tokens /mcp would grant everything to the network (set MCP_TOKENS or MCP_TOKENS_FILE, or bind 127.0.0.1)`,
  );
};
