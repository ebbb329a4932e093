import type { Database } from '../database/database.js';
import type { EventStore } from '../event-store/types.js';
import type { GovernanceService } from '../governance/service.js';
import type { RequestCommandHandlers } from '../requests/commands.js';
import type { Config, Secret } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { createGitHubClient, type GitHubAuth, type GitHubClient } from './client.js';
import { createAdvisoryLeadership } from '../database/leadership.js';
import { createGitHubOperations, type GitHubOperations } from './operations.js';
import { createGitHubReactor, type GitHubReactor } from './reactor.js';
import { createWebhookReceiver, type WebhookReceiver } from './webhooks.js';

/**
 * The GitHub side of the product, built by the composition root when GitHub is configured
 * (credentials set; see `checkGitHubSettings` in the config). Without it the product runs in
 * local approval mode: proposals stage and `cogitave proposals approve|reject` decides them.
 */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

export interface GitHubSettings {
  readonly repository: string;
  readonly apiUrl: string;
  readonly auth: GitHubAuth;
  readonly webhookSecret: Secret;
  readonly baseBranch: string | undefined;
}

/** The GitHub settings, or undefined for local approval mode. */
export const githubSettingsFromConfig = (config: Config): GitHubSettings | undefined => {
  const { githubRepository: repository, githubWebhookSecret: webhookSecret } = config;
  // loadConfig has already refused incomplete combinations; this only narrows the types.
  if (repository === undefined || webhookSecret === undefined) return undefined;
  let auth: GitHubAuth;
  if (config.githubToken !== undefined) {
    auth = { kind: 'token', token: config.githubToken };
  } else if (
    config.githubAppId !== undefined &&
    config.githubAppPrivateKey !== undefined &&
    config.githubAppInstallationId !== undefined
  ) {
    auth = {
      kind: 'app',
      appId: config.githubAppId,
      privateKey: config.githubAppPrivateKey,
      installationId: config.githubAppInstallationId,
    };
  } else {
    return undefined;
  }
  return {
    repository,
    apiUrl: config.githubApiUrl ?? DEFAULT_GITHUB_API_URL,
    auth,
    webhookSecret,
    baseBranch: config.githubBaseBranch,
  };
};

export interface GitHubIntegration {
  readonly settings: GitHubSettings;
  readonly client: GitHubClient;
  readonly operations: GitHubOperations;
  /** Not started: `serve` starts it, one-shot commands do not. */
  readonly reactor: GitHubReactor;
  readonly webhooks: WebhookReceiver;
}

export interface GitHubIntegrationOptions {
  readonly settings: GitHubSettings;
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly handlers: RequestCommandHandlers;
  readonly governance: GovernanceService;
  readonly logger: Logger;
}

// "cogitave-gh" in ASCII: the advisory lock every reactor process competes for.
const REACTOR_LOCK_KEY = 0x636f_6769_7461_6768n;

export const createGitHubIntegration = (options: GitHubIntegrationOptions): GitHubIntegration => {
  const { settings, database, eventStore, handlers, governance, logger } = options;
  const client = createGitHubClient({ apiUrl: settings.apiUrl, auth: settings.auth, logger });
  const operations = createGitHubOperations({
    client,
    repository: settings.repository,
    baseBranch: settings.baseBranch,
    logger,
  });
  const reactor = createGitHubReactor({
    eventStore,
    pool: database.pool,
    github: operations,
    handlers,
    logger,
    // PGlite is one process; a server Postgres may have several reactors competing.
    leadership: database.connectionString
      ? createAdvisoryLeadership({
          connectionString: database.connectionString,
          key: REACTOR_LOCK_KEY,
          logger,
        })
      : undefined,
  });
  const webhooks = createWebhookReceiver({
    secret: settings.webhookSecret,
    repository: settings.repository,
    baseBranch: settings.baseBranch,
    eventStore,
    handlers,
    governance,
    logger,
  });
  return { settings, client, operations, reactor, webhooks };
};
