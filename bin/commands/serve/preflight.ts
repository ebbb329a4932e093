import { createPrivateKey } from 'node:crypto';
import {
  assertSafeBind,
  createTokenAuth,
  loadTokenTable,
  type TokenAuth,
} from '../../../mcp-gateway/auth/tokens.js';
import { auditSettingsFromConfig } from '../../../services/audit/settings.js';
import { assertCatalogDir } from '../../../services/catalog/start-up.js';
import { checkServerDatabase } from '../../../services/database/connection-check.js';
import {
  configInvalid,
  type Config,
  type McpTokenTable,
} from '../../../services/runtime/config.js';
import {
  assertWritableFolder,
  MIN_DATA_DIR_FREE_BYTES,
} from '../../../services/runtime/writable-folder.js';
import { assertRoleFits, partsOf, type Role } from './roles.js';

export interface PreflightFlags {
  readonly role: Role;
  readonly stdio: boolean;
  /** Open one session to DATABASE_URL (default true); `cogitave config --no-check-connections` skips it. */
  readonly checkConnections?: boolean;
}

export interface PreflightResult {
  readonly tokens: McpTokenTable;
  readonly auth: TokenAuth;
}

/**
 * Everything `serve` can refuse about its settings, checked before anything is opened, in
 * one function that `serve` and `cogitave config` both run: a refusal is one line naming the
 * variable (exit 78), or 69 when the database server does not answer. What is not a setting
 * (a taken port, a data folder another `serve` owns) is left to `serve`.
 */
export const preflight = async (
  config: Config,
  flags: PreflightFlags,
): Promise<PreflightResult> => {
  const parts = partsOf(flags.role);
  assertRoleFits(flags.role, config, flags.stdio);
  const tokens = loadTokenTable(config);
  const auth = createTokenAuth(tokens);
  // Local mode answers /mcp without a token, so only a gateway on HTTP must bind to loopback.
  if (parts.gateway && !flags.stdio) assertSafeBind(config.httpHost, auth);
  if (parts.projector) assertCatalogDir(config);
  // The digest keys: read and parsed, as createApp does.
  auditSettingsFromConfig(config);
  assertGitHubAppKey(config);
  // Digests are published by the process running the projector (serve/audit.ts).
  if (parts.projector) assertWritableFolder('COGITAVE_DIGEST_DIR', config.digestDir);
  if (config.databaseUrl === undefined) {
    if (!config.dataDir.startsWith('memory://')) {
      assertWritableFolder('COGITAVE_DATA_DIR', config.dataDir, {
        minFreeBytes: MIN_DATA_DIR_FREE_BYTES,
      });
    }
  } else if (flags.checkConnections ?? true) {
    await checkServerDatabase(config.databaseUrl);
  }
  return { tokens, auth };
};

/** The schema checks the PEM's frame; this parses the key, as signing the first JWT would. */
const assertGitHubAppKey = (config: Config): void => {
  if (config.githubAppPrivateKey === undefined) return;
  try {
    createPrivateKey(config.githubAppPrivateKey.reveal());
  } catch (error) {
    throw configInvalid(
      [
        `GITHUB_APP_PRIVATE_KEY: is not a private key this process can read (${(error as Error).message}); paste the .pem the GitHub App settings page generated`,
      ],
      {},
      { cause: error },
    );
  }
};
