import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../runtime/config.js';
import { CogitaveError, isCogitaveError } from '../runtime/errors.js';
import { loadPublicKey, loadSigningKey } from './digest.js';

/** The audit settings, keys parsed: a bad key stops the process naming its variable. */
export interface AuditSettings {
  readonly digestDir: string;
  readonly digestIntervalMs: number;
  readonly signingKey: KeyObject | undefined;
  /** The configured public key, else the signing key's. */
  readonly trustedKey: KeyObject | undefined;
}

const configError = (variable: string, error: unknown): CogitaveError =>
  new CogitaveError(
    'CONFIG_INVALID',
    `${variable}: ${isCogitaveError(error) || error instanceof Error ? error.message : String(error)}`,
    {},
    { cause: error },
  );

const readKeyFile = (path: string): string => {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw configError(
      'COGITAVE_DIGEST_SIGNING_KEY_FILE',
      new Error(`cannot read "${path}" (${(error as Error).message})`),
    );
  }
};

export const auditSettingsFromConfig = (config: Config): AuditSettings => {
  const source: readonly [string, string] | undefined =
    config.digestSigningKey !== undefined
      ? ['COGITAVE_DIGEST_SIGNING_KEY', config.digestSigningKey.reveal()]
      : config.digestSigningKeyFile !== undefined
        ? ['COGITAVE_DIGEST_SIGNING_KEY_FILE', readKeyFile(config.digestSigningKeyFile)]
        : undefined;
  let signingKey: KeyObject | undefined;
  if (source !== undefined) {
    const [variable, pem] = source;
    try {
      signingKey = loadSigningKey(pem, 'the key');
    } catch (error) {
      throw configError(variable, error);
    }
  }
  let trustedKey = signingKey ? createPublicKey(signingKey) : undefined;
  if (config.digestPublicKey !== undefined) {
    try {
      trustedKey = loadPublicKey(config.digestPublicKey, 'the key');
    } catch (error) {
      throw configError('COGITAVE_DIGEST_PUBLIC_KEY', error);
    }
  }
  return {
    digestDir: config.digestDir,
    digestIntervalMs: config.digestIntervalMs,
    signingKey,
    trustedKey,
  };
};
