import { InvalidArgumentError } from 'commander';
import { createApp, type App } from '../app.js';
import { loadConfig, type Config } from '../../services/runtime/config.js';
import { createLogger, defaultLogFormat, type Logger } from '../../services/runtime/logger.js';

/**
 * Per-command composition: configuration is built once, then the app. Commands other than
 * `serve` log only warnings unless LOG_LEVEL says otherwise, so their stdout/stderr stay
 * readable.
 */
export const commandLogger = (config: Config, quietByDefault: boolean): Logger =>
  createLogger(
    quietByDefault && process.env.LOG_LEVEL === undefined ? 'warn' : config.logLevel,
    'cogitave',
    config.logFormat ?? defaultLogFormat(process.stderr.isTTY),
  );

/** This process as other processes on the same data folder are told of it. */
export const commandLine = (): string =>
  ['cogitave', ...process.argv.slice(2)].join(' ').slice(0, 200);

export const withApp = async <T>(quiet: boolean, run: (app: App) => Promise<T>): Promise<T> => {
  const config = loadConfig();
  const app = await createApp(config, commandLogger(config, quiet), { command: commandLine() });
  try {
    return await run(app);
  } finally {
    await app.close();
  }
};

/** commander argument parsers: a bad value is a usage error that names the flag's rule. */
export const parseCount =
  (max: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || n > max) {
      throw new InvalidArgumentError(`expected a whole number from 1 to ${max}`);
    }
    return n;
  };

export const parseRevision = (value: string): bigint => {
  if (!/^\d+$/.test(value))
    throw new InvalidArgumentError('expected a revision: a whole number, 0 or more');
  return BigInt(value);
};
