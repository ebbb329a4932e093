import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  readonly key: Buffer;
  readonly cert: Buffer;
  /** The certificate as a file, for the connection string's `tlsCAFile`. */
  readonly caFile: string;
  remove(): void;
}

/**
 * A self-signed certificate for localhost and 127.0.0.1 (openssl), so the double can serve
 * TLS as a secure node does. Undefined when openssl is not installed.
 */
export const createTestCertificate = (): TestCertificate | undefined => {
  const dir = mkdtempSync(join(tmpdir(), 'esdb-double-tls-'));
  const keyFile = join(dir, 'key.pem');
  const caFile = join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        caFile,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    key: readFileSync(keyFile),
    cert: readFileSync(caFile),
    caFile,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
