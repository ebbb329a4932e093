import { z } from 'zod';

/**
 * The principal table setting (`COGITAVE_PRINCIPALS`): its format is configuration, so it
 * lives with the settings; `services/principals/` interprets it.
 */

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** GitHub logins: letters, digits and single hyphens, at most 39 characters. */
const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

const principalSchema = z
  .object({
    tokens: z
      .array(z.string().regex(NAME, 'token names are 1-64 letters, digits, . _ -'))
      .readonly()
      .default([]),
    github: z.array(z.string().regex(GITHUB_LOGIN, 'must be GitHub logins')).readonly().default([]),
    maintainer: z.boolean().default(false),
  })
  .strict();

/** `{"<principal>": {"tokens": [...], "github": [...], "maintainer": bool}}`. */
export const principalTableSchema = z
  .record(
    z.string().regex(NAME, 'principal names are 1-64 letters, digits, . _ -'),
    principalSchema,
  )
  .superRefine((table, ctx) => {
    // An identity names one person: listed twice, four eyes would depend on lookup order.
    const owners = new Map<string, string>();
    for (const [name, principal] of Object.entries(table)) {
      const identities = [
        ...principal.tokens.map((token) => `token ${token}`),
        ...principal.github.map((login) => `GitHub login ${login.toLowerCase()}`),
      ];
      for (const identity of identities) {
        const owner = owners.get(identity);
        if (owner !== undefined && owner !== name) {
          ctx.addIssue({
            code: 'custom',
            message: `${identity} belongs to both ${owner} and ${name}; an identity has one principal`,
          });
        }
        owners.set(identity, name);
      }
    }
  });
export type PrincipalTable = z.output<typeof principalTableSchema>;
/** The table as written (configuration), before defaults. */
export type PrincipalTableInput = z.input<typeof principalTableSchema>;
