import { Command } from 'commander';
import { verifyLog } from '../../services/event-store/verify.js';
import { withApp } from './context.js';

export const verifyCommand = new Command('verify')
  .description(
    'Check the hash chain of every stream (and each event against its canonical encoding); exits 1 and names the first broken link (stream, revision, position) if any.',
  )
  .option('--json', 'print the report as JSON')
  .action(async (flags: { json?: boolean }) => {
    await withApp(true, async ({ eventStore }) => {
      const interactive = process.stderr.isTTY && !flags.json;
      const report = await verifyLog(eventStore, {
        onProgress: (checked) => {
          if (interactive) process.stderr.write(`\rverified ${checked} events…`);
        },
      });
      if (interactive) process.stderr.write('\r\x1b[K');
      if (flags.json) {
        const broken = report.broken && {
          ...report.broken,
          revision: report.broken.revision.toString(),
        };
        process.stdout.write(`${JSON.stringify({ ...report, broken })}\n`);
      } else if (report.broken) {
        const { streamId, revision, position, reason } = report.broken;
        process.stdout.write(
          `BROKEN: stream ${streamId} revision ${revision} position ${position}: ${reason}\n` +
            `(${report.events} events in ${report.streams} streams verified before it)\n`,
        );
      } else {
        process.stdout.write(`verified ${report.events} events in ${report.streams} streams\n`);
      }
      if (report.broken) process.exitCode = 1;
    });
  });
