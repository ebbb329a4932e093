import { CogitaveError, InvalidArgument } from '../../../services/runtime/errors.js';
import type { Config } from '../../../services/runtime/config.js';
import { githubSettingsFromConfig } from '../../../services/github/index.js';

/**
 * The parts of the product one `serve` process runs. `all` (the embedded default) runs every
 * part in one process; the others split them across processes that share one server Postgres.
 */
export const ROLES = ['all', 'gateway', 'projector', 'reactor'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_HELP =
  'which part of the product this process runs: all (everything, the default), gateway (MCP over HTTP or stdio, REST, llms.txt, GitHub webhooks), projector (the read models and the catalog start-up ingest) or reactor (the GitHub reactor)';

/** What each role runs, as the composition in `serve` reads it. */
export interface RoleParts {
  readonly gateway: boolean;
  readonly projector: boolean;
  readonly reactor: boolean;
}

export const partsOf = (role: Role): RoleParts => ({
  gateway: role === 'all' || role === 'gateway',
  projector: role === 'all' || role === 'projector',
  reactor: role === 'all' || role === 'reactor',
});

/**
 * Refuses combinations that cannot work, before anything is opened: a split role needs a
 * database other processes can reach (PGlite lives inside one process), stdio serves MCP (a
 * gateway's job), and a reactor process without GitHub would have nothing to do.
 */
export const assertRoleFits = (role: Role, config: Config, stdio: boolean): void => {
  if (role !== 'all' && config.databaseUrl === undefined) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `DATABASE_URL: serve --role ${role} needs a server Postgres that the other roles share (postgres://…); the embedded PGlite database belongs to one process. Set DATABASE_URL, or run --role all.`,
      { role },
    );
  }
  if (stdio && !partsOf(role).gateway) {
    throw new InvalidArgument(
      `--stdio serves MCP, which the ${role} role does not; use --role gateway or --role all with --stdio`,
      { role },
    );
  }
  if (role === 'reactor' && githubSettingsFromConfig(config) === undefined) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      'GITHUB_TOKEN: serve --role reactor runs the GitHub reactor and needs GitHub mode (GITHUB_REPOSITORY, GITHUB_WEBHOOK_SECRET and GITHUB_TOKEN or the GITHUB_APP_* settings). In local approval mode no reactor process is needed.',
      { role },
    );
  }
};
