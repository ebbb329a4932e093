import type { PrincipalTable } from '../runtime/principal-table.js';

export {
  principalTableSchema,
  type PrincipalTable,
  type PrincipalTableInput,
} from '../runtime/principal-table.js';

/**
 * Principals: the people (or teams) behind the identities that act on the product. One
 * principal links the MCP tokens its agents use, the GitHub logins it merges with and the name
 * it gives the local approval CLI; four eyes compares principals, never identity strings, so
 * octocat's agent (`token:octocat-agent`) and octocat on GitHub (`github:octocat`) are one.
 *
 * An identity that no principal lists is its own principal, named by the identity without its
 * channel (`token:ada`, `github:ada` and `maintainer:ada` are all `ada`): unconfigured names
 * that look alike are treated as the same person, which can only refuse more approvals.
 */

export interface Principal {
  /** Lower-case; equal ids are the same person. */
  readonly id: string;
  /** Listed in the principal table (false: derived from the identity's name). */
  readonly configured: boolean;
  readonly maintainer: boolean;
}

export interface PrincipalDirectory {
  /**
   * The principal behind an actor as events record it: `token:<name>` (MCP token),
   * `github:<login>` (webhook), `maintainer:<name>` (local CLI; a principal or a GitHub login),
   * or any other string (taken as a name).
   */
  principalOf(actor: string): Principal;
  /** True when the table names maintainers: then only they may approve. */
  readonly maintainersConfigured: boolean;
  /** The maintainers' principal ids, for messages. */
  readonly maintainers: readonly string[];
}

/** `github:octocat` → github, octocat; the name is what follows the last colon. */
const channelAndName = (actor: string): { channel: string; name: string } => {
  const first = actor.indexOf(':');
  return first < 0
    ? { channel: '', name: actor }
    : { channel: actor.slice(0, first), name: actor.slice(actor.lastIndexOf(':') + 1) };
};

export const createPrincipalDirectory = (table: PrincipalTable = {}): PrincipalDirectory => {
  const byToken = new Map<string, string>();
  const byLogin = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const [name, principal] of Object.entries(table)) {
    byName.set(name.toLowerCase(), name);
    for (const token of principal.tokens) byToken.set(token, name);
    for (const login of principal.github) byLogin.set(login.toLowerCase(), name);
  }
  const maintainers = Object.entries(table)
    .filter(([, principal]) => principal.maintainer)
    .map(([name]) => name.toLowerCase());
  const maintainersConfigured = maintainers.length > 0;

  const configuredName = (channel: string, name: string): string | undefined => {
    switch (channel) {
      case 'token':
        return byToken.get(name);
      case 'github':
        return byLogin.get(name.toLowerCase());
      default:
        return byName.get(name.toLowerCase()) ?? byLogin.get(name.toLowerCase());
    }
  };

  return {
    maintainersConfigured,
    maintainers,
    principalOf: (actor) => {
      const { channel, name } = channelAndName(actor);
      const configured = configuredName(channel, name);
      if (configured !== undefined) {
        return {
          id: configured.toLowerCase(),
          configured: true,
          maintainer: table[configured]?.maintainer ?? false,
        };
      }
      // Without a maintainer list, who may merge is GitHub's to say (branch protection) and
      // who may run the local CLI is whoever reaches the database.
      return { id: name.toLowerCase(), configured: false, maintainer: !maintainersConfigured };
    },
  };
};
