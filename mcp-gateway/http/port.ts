import { createServer } from 'node:net';
import { CogitaveError } from '../../services/runtime/errors.js';

/**
 * The HTTP port and address as the operator configured them, checked before anything else
 * starts (`serve` probes before it opens or migrates the database), and the same errors when
 * the real listener fails on them later (another process won the port meanwhile).
 */
export const listenError = (error: Error, host: string, port: number): Error => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new CogitaveError(
      'IN_USE',
      `Port ${String(port)} on ${host} is already in use by another process: stop that process, or set COGITAVE_HTTP_PORT to a free port (0 picks one).`,
      { host, port },
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new CogitaveError(
      'CONFIG_INVALID',
      `Port ${String(port)} on ${host} needs privileges this process does not have: set COGITAVE_HTTP_PORT to 1024 or above.`,
      { host, port },
      { cause: error },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new CogitaveError(
      'CONFIG_INVALID',
      `COGITAVE_HTTP_HOST ${host} is not an address of this machine: use 127.0.0.1 (the default) or one of its own addresses.`,
      { host, port },
      { cause: error },
    );
  }
  return error;
};

/** Resolves when `host:port` can be listened on now; throws the error above otherwise. */
export const assertPortFree = async (host: string, port: number): Promise<void> => {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) => {
      reject(listenError(error, host, port));
    });
    probe.listen({ host, port, exclusive: true }, () => {
      probe.close(() => {
        resolve();
      });
    });
  });
};
