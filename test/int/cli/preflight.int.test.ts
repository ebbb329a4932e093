import { afterAll, describe, expect, it } from 'vitest';
import { preflight } from '../../../bin/commands/serve/preflight.js';
import type { Role } from '../../../bin/commands/serve/roles.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { isCogitaveError } from '../../../services/runtime/errors.js';
import { settingRefusalFixtures } from '../../support/setting-refusals.js';

/**
 * Every refused setting through the one function `serve` and `cogitave config` both run,
 * in process (cheap): the error is coded for exit 78 or 69 and its message is one line that
 * starts with the variable and shows no secret. The CLI side is test/e2e/settings-refusals.
 */
const fixtures = settingRefusalFixtures();
afterAll(() => {
  fixtures.cleanup();
});

const CODES = { 78: 'CONFIG_INVALID', 69: 'UNAVAILABLE' } as const;

const roleOf = (args: readonly string[] = []): Role => {
  const at = args.indexOf('--role');
  return at === -1 ? 'all' : (args[at + 1] as Role);
};

describe.concurrent('preflight', () => {
  for (const refusal of fixtures.cases) {
    const title = `given ${refusal.name}, when checked, then ${CODES[refusal.code]} says one line naming ${refusal.variable}`;
    // Root may write anywhere: the permission case runs end to end as nobody.
    const skip = refusal.asNobody ? 'runs end to end as nobody' : refusal.skip;
    const test = skip ? it.skip : it;
    test(skip ? `${title} (skipped: ${skip})` : title, async () => {
      const error = await (async () => {
        const config = loadConfig({ ...fixtures.baseEnv(), ...refusal.env });
        await preflight(config, { role: roleOf(refusal.args), stdio: false });
      })().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );

      expect(isCogitaveError(error), String(error)).toBe(true);
      if (!isCogitaveError(error)) return;
      expect(error.code).toBe(CODES[refusal.code]);
      expect(error.message).not.toContain('\n');
      expect(error.message).toMatch(new RegExp(`^${refusal.variable}: `));
      if (refusal.says) expect(error.message).toMatch(refusal.says);
      for (const secret of fixtures.secrets) expect(error.message).not.toContain(secret);
    });
  }

  it('given settings serve accepts, when checked, then it passes and hands back the token table', async () => {
    const config = loadConfig({ ...fixtures.baseEnv(), DATABASE_URL: fixtures.reachableUrl });

    const result = await preflight(config, { role: 'all', stdio: false });

    expect(result.auth.enabled).toBe(false);
    expect(result.tokens).toEqual({});
  });
});
