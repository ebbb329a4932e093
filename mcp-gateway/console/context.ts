import type { Logger } from '../../services/runtime/logger.js';
import type { TokenAuth } from '../auth/tokens.js';
import type { ToolDefinition } from '../registry.js';
import type { GatewayServices } from '../services.js';
import type { ApprovalMode } from './actions.js';
import type { ConsoleAssets } from './assets.js';
import type { AuditSources } from './pages/audit.js';
import type { ResourceBrowser, ToolReader } from './reads.js';
import type { ConsoleSessions } from './session.js';

export interface ConsoleHandlerDeps {
  readonly services: GatewayServices;
  readonly tools: readonly ToolDefinition[];
  readonly auth: TokenAuth;
  readonly approval: ApprovalMode;
  readonly logger: Logger;
  readonly sessions: ConsoleSessions;
  readonly assets: ConsoleAssets;
  readonly audit?: AuditSources | undefined;
  readonly onLoginCodeUsed: () => void;
}

/** What every console route is given: the handler's deps and its readers, built once. */
export interface ConsoleContext {
  readonly deps: ConsoleHandlerDeps;
  /** Reads through the registry's tools, as the caller. */
  readonly read: ToolReader;
  readonly browse: ResourceBrowser;
}

/** A query parameter, trimmed; blank is absent. */
export const optional = (value: string | null): string | undefined =>
  value === null || value.trim() === '' ? undefined : value.trim();
