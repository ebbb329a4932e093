import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { githubSettingsFromConfig } from '../../../services/github/index.js';
import { Secret, loadConfig } from '../../../services/runtime/config.js';
import { CogitaveError } from '../../../services/runtime/errors.js';

const PEM =
  '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA-key-material\n-----END RSA PRIVATE KEY-----';
const TOKEN = 'ghp_supersecret_token_value';
const HOOK_SECRET = 'hook-secret-value';

const problems = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(CogitaveError);
    return (error as CogitaveError).details.problems as string[];
  }
  throw new Error('loadConfig did not throw');
};

describe('GitHub settings', () => {
  it('given no GitHub credentials (even with GITHUB_REPOSITORY, as GitHub Actions sets it), when loaded, then the product runs in local approval mode', () => {
    expect(githubSettingsFromConfig(loadConfig({}))).toBeUndefined();
    expect(
      githubSettingsFromConfig(loadConfig({ GITHUB_REPOSITORY: 'octo/repo' })),
    ).toBeUndefined();
  });

  it('given a token, repository and webhook secret, when loaded, then GitHub mode uses them with the public API by default', () => {
    const settings = githubSettingsFromConfig(
      loadConfig({
        GITHUB_TOKEN: TOKEN,
        GITHUB_REPOSITORY: 'octo/repo',
        GITHUB_WEBHOOK_SECRET: HOOK_SECRET,
      }),
    );

    expect(settings).toMatchObject({
      repository: 'octo/repo',
      apiUrl: 'https://api.github.com',
      auth: { kind: 'token' },
      baseBranch: undefined,
    });
    expect(settings?.auth.kind === 'token' && settings.auth.token.reveal()).toBe(TOKEN);
    expect(settings?.webhookSecret.reveal()).toBe(HOOK_SECRET);
  });

  it('given a GitHub App with a one-line (\\n-escaped) PEM key and an Enterprise URL, when loaded, then the key has real newlines and the URL no trailing slash', () => {
    const config = loadConfig({
      GITHUB_APP_ID: '123',
      GITHUB_APP_PRIVATE_KEY: PEM.replaceAll('\n', '\\n'),
      GITHUB_APP_INSTALLATION_ID: '456',
      GITHUB_REPOSITORY: 'octo/repo',
      GITHUB_WEBHOOK_SECRET: HOOK_SECRET,
      GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
      GITHUB_BASE_BRANCH: 'trunk',
    });
    const settings = githubSettingsFromConfig(config);

    expect(settings).toMatchObject({
      apiUrl: 'https://ghe.example.com/api/v3',
      baseBranch: 'trunk',
      auth: { kind: 'app', appId: 123, installationId: 456 },
    });
    expect(settings?.auth.kind === 'app' && settings.auth.privateKey.reveal()).toBe(PEM);
  });

  it('given secrets, when the config is printed, serialised, inspected or stringified, then no secret shows', () => {
    const config = loadConfig({
      GITHUB_TOKEN: TOKEN,
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_WEBHOOK_SECRET: HOOK_SECRET,
    });
    const everything = [
      JSON.stringify(config),
      inspect(config),
      String(config.githubToken),
      config.githubWebhookSecret?.toString() ?? '',
    ].join(' ');

    expect(config.githubToken).toBeInstanceOf(Secret);
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(HOOK_SECRET);
    expect(everything).toContain('[redacted]');
  });

  it('given half a GitHub configuration, when loaded, then every missing variable is named', () => {
    expect(problems({ GITHUB_APP_ID: '1' })).toEqual([
      'GITHUB_APP_PRIVATE_KEY, GITHUB_APP_INSTALLATION_ID: required with the other GITHUB_APP_* settings',
      'GITHUB_REPOSITORY: required when GitHub credentials are set (owner/name)',
      'GITHUB_WEBHOOK_SECRET: required when GitHub credentials are set (approvals arrive as signed webhooks)',
    ]);
    expect(
      problems({
        GITHUB_TOKEN: TOKEN,
        GITHUB_APP_ID: '1',
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_WEBHOOK_SECRET: 's',
      }),
    ).toEqual(['GITHUB_TOKEN: set either GITHUB_TOKEN or the GITHUB_APP_* settings, not both']);
  });

  it('given invalid GitHub values, when loaded, then each names its variable and secrets are never echoed', () => {
    const found = problems({
      GITHUB_REPOSITORY: 'not-a-repo',
      GITHUB_APP_ID: 'abc',
      GITHUB_APP_PRIVATE_KEY: `not a key ${TOKEN}`,
      GITHUB_API_URL: 'ftp://example.com',
    });

    expect(found).toEqual([
      'GITHUB_REPOSITORY: must be owner/name (got not-a-repo)',
      'GITHUB_APP_ID: must be a positive whole number (got abc)',
      'GITHUB_APP_PRIVATE_KEY: must be a PEM private key (-----BEGIN ... PRIVATE KEY-----; \\n escapes allowed) (value hidden)',
      'GITHUB_API_URL: must be an http(s) URL (got ftp://example.com)',
    ]);
    expect(found.join(' ')).not.toContain(TOKEN);
  });
});
