import { generateKeyPairSync } from 'node:crypto';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  loadOpenApi,
  startGitHubDouble,
  type GitHubDouble,
} from '../../support/github-double/index.js';
import { OWNER, REPO, quiet } from './clients.js';

/** GitHub App authentication: app JWT → installation token → API calls as the app's bot. */
describe('GitHub double: GitHub App installation tokens', () => {
  let github: GitHubDouble;
  const APP_ID = 4242;
  const INSTALLATION_ID = 77;
  const keyPair = () =>
    generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
  const key = keyPair();
  const repo = { owner: OWNER, repo: REPO };

  const appOctokit = (privateKey: string, installationId = INSTALLATION_ID): Octokit =>
    new Octokit({
      authStrategy: createAppAuth,
      auth: { appId: APP_ID, privateKey, installationId },
      baseUrl: github.url,
      log: quiet,
    });

  beforeAll(async () => {
    github = await startGitHubDouble();
  });
  afterEach(() => {
    github.reset();
  });
  afterAll(() => github.close());

  it('issues an installation token for a JWT signed with the app key, and acts as its bot', async () => {
    github.registerApp({
      appId: APP_ID,
      privateKey: key.privateKey,
      slug: 'cogitave',
      installations: [INSTALLATION_ID],
    });
    const octokit = appOctokit(key.privateKey);
    const issue = await octokit.rest.issues.create({ ...repo, title: 'From the app' });
    expect(issue.data.user).toMatchObject({ login: 'cogitave[bot]', type: 'Bot' });
    await octokit.rest.issues.get({ ...repo, issue_number: 1 });
    // auth-app caches the token: one exchange for both calls.
    expect(github.stats.calls['apps/create-installation-access-token']).toBe(1);

    const auth = (await octokit.auth({ type: 'installation' })) as {
      token: string;
      expiresAt: string;
      permissions: Record<string, string>;
    };
    expect(auth.token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(Date.parse(auth.expiresAt) - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(auth.permissions).toMatchObject({ issues: 'write', pull_requests: 'write' });

    // The token works for any client, as GitHub's does.
    const byToken = new Octokit({ auth: auth.token, baseUrl: github.url, log: quiet });
    expect((await byToken.rest.issues.get({ ...repo, issue_number: 1 })).data.title).toBe(
      'From the app',
    );
    expect(github.violations).toEqual([]);
  });

  it('answers a token with the shape the OpenAPI description documents', async () => {
    const openapi = await loadOpenApi();
    github.registerApp({ appId: APP_ID, privateKey: key.privateKey });
    const appAuth = createAppAuth({ appId: APP_ID, privateKey: key.privateKey });
    const { token: jwt } = await appAuth({ type: 'app' });
    const response = await new Octokit({ baseUrl: github.url, log: quiet }).request(
      'POST /app/installations/{installation_id}/access_tokens',
      { installation_id: 5, headers: { authorization: `bearer ${jwt}` } },
    );
    expect(response.status).toBe(201);
    expect(
      openapi.checkResponse('apps/create-installation-access-token', 201, response.data),
    ).toEqual([]);
    expect(github.violations).toEqual([]);
  });

  it('refuses a JWT signed with another key, an unknown installation, and a bad token', async () => {
    github.registerApp({
      appId: APP_ID,
      publicKey: key.publicKey,
      installations: [INSTALLATION_ID],
    });
    await expect(appOctokit(keyPair().privateKey).rest.repos.get(repo)).rejects.toMatchObject({
      status: 401,
    });
    await expect(appOctokit(key.privateKey, 78).rest.repos.get(repo)).rejects.toMatchObject({
      status: 404,
    });
    const stranger = new Octokit({
      auth: 'ghs_notIssuedByTheDouble',
      baseUrl: github.url,
      log: quiet,
    });
    await expect(stranger.rest.repos.get(repo)).rejects.toMatchObject({
      status: 401,
      response: { data: { message: 'Bad credentials' } },
    });
    expect(github.violations.map((v) => [v.kind, v.status, v.reason])).toEqual([
      ['auth', 401, 'A JSON web token could not be decoded'],
      ['auth', 401, 'Bad credentials'],
    ]);
  });
});
