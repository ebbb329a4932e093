import type { TokenAuth } from '../auth/tokens.js';
import type { HttpRoute, PublicUrls } from '../http/server.js';
import type { ToolDefinition } from '../registry.js';
import type { GatewayServices } from '../services.js';
import type { Logger } from '../../services/runtime/logger.js';
import type { ApprovalMode } from './actions.js';
import { createConsoleAssets } from './assets.js';
import { createConsoleHandler, type AuditSources } from './routes.js';
import { createConsoleSessions } from './session.js';

export type { ApprovalMode, AuditSources };

export interface ConsoleOptions {
  readonly services: GatewayServices;
  readonly tools: readonly ToolDefinition[];
  readonly auth: TokenAuth;
  readonly secret?: string | undefined;
  readonly approval: ApprovalMode;
  readonly logger: Logger;
  readonly audit?: AuditSources | undefined;
}

export interface WebConsole {
  /** `/console` and everything below it, through the server's one edge. */
  readonly routes: readonly HttpRoute[];
  /** Fields of the `cogitave ready` line: the console's URL, in local mode its login link. */
  announce(urls: PublicUrls): Record<string, string>;
}

/** Body of a console form (a reason is at most 2,000 characters). */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * The web console for people: one more client of the gateway's read services and commands.
 * Pages are server-rendered HTML; one small script adds live updates (server-sent events).
 */
export const createWebConsole = (options: ConsoleOptions): WebConsole => {
  const sessions = createConsoleSessions({ auth: options.auth, secret: options.secret });
  const assets = createConsoleAssets();
  let loginBase: URL | undefined;
  const loginLink = (): string | undefined =>
    loginBase === undefined
      ? undefined
      : new URL(`login?code=${sessions.currentLoginCode()}`, loginBase).href;
  const handle = createConsoleHandler({
    ...options,
    sessions,
    assets,
    onLoginCodeUsed: () => {
      const link = loginLink();
      // One-time: the used link opens nothing now; the next person needs this one.
      if (link !== undefined) options.logger.info({ console: link }, 'console login link');
    },
  });
  const route = (path: string, prefix: boolean): HttpRoute => ({
    path,
    prefix,
    methods: ['GET', 'POST'],
    maxBodyBytes: MAX_FORM_BYTES,
    handle,
  });
  return {
    routes: [route('/console', false), route('/console/', true)],
    announce: (urls) => {
      loginBase = new URL('console/', urls.base);
      const link = loginLink();
      return sessions.localMode && link !== undefined
        ? { console: link }
        : { console: loginBase.href };
    },
  };
};
