import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markerIn } from '../../../services/github/markers.js';
import { Secret } from '../../../services/runtime/config.js';
import {
  OWNER,
  REPO,
  openHarness,
  proposeIntake,
  reactorCaughtUp,
  type Harness,
} from './harness.js';

/**
 * GitHub App auth (@octokit/auth-app) against the double, which verifies the app's RS256 JWT
 * and issues installation tokens: the reactor acts as the app's bot.
 */
let h: Harness;

beforeAll(async () => {
  h = await openHarness('github_app_auth');
});

afterAll(async () => {
  await h.close();
});

describe('GitHub App auth', () => {
  it('given a GitHub App installation, when the reactor opens an issue, then it authenticates with an installation token and acts as the app bot', async () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    h.double.registerApp({ appId: 4242, privateKey, slug: 'cogitave-bot', installations: [77] });
    const requestId = await proposeIntake(h.handlers, 1);

    const reactor = h.reactor(
      h.client({
        auth: { kind: 'app', appId: 4242, privateKey: new Secret(privateKey), installationId: 77 },
      }),
    );
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();

    const [issue] = h.double.listIssues(OWNER, REPO);
    expect(markerIn(issue?.body, 'request')).toBe(requestId);
    expect(issue?.user?.login).toBe('cogitave-bot[bot]');
    expect(h.double.stats.calls['apps/create-installation-access-token']).toBeGreaterThanOrEqual(1);
    expect(h.double.violations).toEqual([]);
  });
});
