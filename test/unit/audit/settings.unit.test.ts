import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawPublicKey } from '../../../services/audit/digest.js';
import { auditSettingsFromConfig } from '../../../services/audit/settings.js';
import { loadConfig } from '../../../services/runtime/config.js';

const folder = mkdtempSync(join(tmpdir(), 'cogitave-audit-settings-'));
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

const ed25519 = generateKeyPairSync('ed25519');
const pem = ed25519.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const refusal = (env: Record<string, string>): string => {
  try {
    auditSettingsFromConfig(loadConfig(env));
  } catch (error) {
    expect((error as { code?: string }).code).toBe('CONFIG_INVALID');
    return (error as Error).message;
  }
  throw new Error('the settings were accepted');
};

describe('digest settings', () => {
  it('given no key, when read, then digests are unsigned and published to .cogitave/digests every minute', () => {
    expect(auditSettingsFromConfig(loadConfig({}))).toMatchObject({
      digestDir: '.cogitave/digests',
      digestIntervalMs: 60_000,
      signingKey: undefined,
      trustedKey: undefined,
    });
  });

  it('given a signing key inline (with \\n escapes) or in a file, when read, then it signs and its public half is trusted', () => {
    const inline = auditSettingsFromConfig(
      loadConfig({ COGITAVE_DIGEST_SIGNING_KEY: pem.trim().replace(/\n/g, '\\n') }),
    );
    expect(inline.trustedKey && rawPublicKey(inline.trustedKey)).toBe(
      rawPublicKey(ed25519.publicKey),
    );
    const file = join(folder, 'key.pem');
    writeFileSync(file, pem);
    const fromFile = auditSettingsFromConfig(
      loadConfig({ COGITAVE_DIGEST_SIGNING_KEY_FILE: file }),
    );
    expect(fromFile.signingKey?.asymmetricKeyType).toBe('ed25519');
  });

  it('given a public key only, when read, then digests are checked against it and not signed', () => {
    const settings = auditSettingsFromConfig(
      loadConfig({ COGITAVE_DIGEST_PUBLIC_KEY: rawPublicKey(ed25519.publicKey) }),
    );
    expect(settings.signingKey).toBeUndefined();
    expect(settings.trustedKey && rawPublicKey(settings.trustedKey)).toBe(
      rawPublicKey(ed25519.publicKey),
    );
  });

  it.each([
    [
      'an RSA key',
      {
        COGITAVE_DIGEST_SIGNING_KEY: generateKeyPairSync('rsa', { modulusLength: 1024 })
          .privateKey.export({ type: 'pkcs8', format: 'pem' })
          .toString(),
      },
      'COGITAVE_DIGEST_SIGNING_KEY: the key is a rsa key; digests are signed with Ed25519',
    ],
    [
      'a missing key file',
      { COGITAVE_DIGEST_SIGNING_KEY_FILE: join(folder, 'nope.pem') },
      'COGITAVE_DIGEST_SIGNING_KEY_FILE: cannot read',
    ],
    [
      'a short public key',
      { COGITAVE_DIGEST_PUBLIC_KEY: 'AAAA' },
      'COGITAVE_DIGEST_PUBLIC_KEY: an Ed25519 public key is 32 bytes',
    ],
  ])('given %s, when read, then CONFIG_INVALID names the variable', (_what, env, message) => {
    expect(refusal(env)).toContain(message);
  });

  it.each([
    [{ COGITAVE_DIGEST_SIGNING_KEY: 'not a key' }, 'must be a PEM PKCS#8 private key'],
    [
      { COGITAVE_DIGEST_SIGNING_KEY: pem, COGITAVE_DIGEST_SIGNING_KEY_FILE: '/k.pem' },
      'set either it or COGITAVE_DIGEST_SIGNING_KEY, not both',
    ],
    [{ COGITAVE_DIGEST_INTERVAL_MS: '-5' }, 'COGITAVE_DIGEST_INTERVAL_MS: must be a whole number'],
  ])('given %o, when loaded, then the configuration is refused saying why', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
