import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { PinoPretty } from 'pino-pretty';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

/** Pretty for a person at a terminal, JSON lines for everything that reads logs (CI, probes). */
export const defaultLogFormat = (stderrIsTty: boolean): LogFormat =>
  stderrIsTty ? 'pretty' : 'json';

// pino-pretty as a stream in this thread (no transport worker): lines stay in order with
// everything else written to stderr, and nothing is lost when the process exits at once.
const prettyStderr = (): DestinationStream =>
  PinoPretty({
    destination: 2,
    sync: true,
    colorize: process.stderr.isTTY,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
    singleLine: false,
  });

/**
 * Logs on stderr: stdout belongs to the stdio MCP transport and to CLI output. JSON lines, or
 * the same records rendered for a person (`pretty`, local times). Anything that may carry a
 * secret is redacted at the source, not by convention at call sites, in either format.
 */
export const createLogger = (
  level: LevelWithSilent,
  name = 'cogitave',
  format: LogFormat = 'json',
  /** Where JSON lines go instead of stderr (tests capture them). */
  destination?: DestinationStream,
): Logger =>
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
    destination ??
      (format === 'pretty' ? prettyStderr() : pino.destination({ fd: 2, sync: false })),
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
