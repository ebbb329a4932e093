import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stderr: stdout belongs to the stdio MCP transport and to CLI output.
 * Anything that may carry a secret is redacted at the source, not by convention at call sites.
 */
export const createLogger = (level: LevelWithSilent, name = 'cogitave'): Logger =>
  pino(
    {
      name,
      level,
      redact: {
        paths: [
          '*.password',
          '*.token',
          '*.secret',
          '*.authorization',
          'config.databaseUrl',
          'config.eventStoreUrl',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );

/** Strips credentials from a connection URL so it can be logged or shown. */
export const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '[unparseable url]';
  }
};
