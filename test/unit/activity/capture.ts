import { createLogger, type Logger } from '../../../services/runtime/logger.js';

/** A logger built as the product builds it (level, redaction), writing JSON lines to memory. */
export const createCapturingLogger = (): {
  logger: Logger;
  records: () => Record<string, unknown>[];
} => {
  const written: string[] = [];
  const logger = createLogger('info', 'cogitave', 'json', {
    write: (line: string) => {
      written.push(line);
    },
  });
  return {
    logger,
    records: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
};
