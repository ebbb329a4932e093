import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { parseDigest } from '../../services/audit/digest.js';
import type { DigestChoice } from '../../services/audit/service.js';
import type { VerifyReport } from '../../services/audit/verify.js';
import { InvalidArgument } from '../../services/runtime/errors.js';
import { withApp } from './context.js';

/** `--digest`: the digest's JSON itself, or a file holding it (a published latest.json). */
const readDigestFlag = (value: string): DigestChoice => {
  const trimmed = value.trim();
  try {
    if (trimmed.startsWith('{')) {
      return { kind: 'given', digest: parseDigest(trimmed, '--digest'), source: '--digest' };
    }
    let text: string;
    try {
      text = readFileSync(resolve(trimmed), 'utf8');
    } catch (error) {
      throw new InvalidArgument(
        `--digest: "${trimmed}" is neither a digest (JSON) nor a readable file (${(error as Error).message})`,
      );
    }
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const last = lines.at(-1) ?? '';
    return { kind: 'given', digest: parseDigest(last, trimmed), source: resolve(trimmed) };
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

const describeDigest = (report: VerifyReport): string => {
  const digest = report.digest;
  if (!digest) return 'digest: none';
  const signature =
    digest.signature.status === 'valid'
      ? `signature valid${digest.signature.pinned ? ' (configured key)' : ' (key not pinned)'}`
      : `signature ${digest.signature.status}`;
  return `digest (${digest.source}): ${digest.events} events up to position ${digest.position ?? '-'}, root ${digest.root ?? '-'}, made ${digest.at}; ${signature}; ${digest.matched ? 'the log matches it' : 'the log does NOT match it'}`;
};

export const verifyCommand = new Command('verify')
  .description(
    "Check the whole log: every stream's hash chain (each event hashed as stored), the seal of the global chain, and a digest (by default the latest published to COGITAVE_DIGEST_DIR). Exits 1 naming the first missing, reordered or altered event.",
  )
  .option(
    '--digest <digest>',
    'check against this digest instead (its JSON, as printed by "cogitave digest", or a file holding it)',
    readDigestFlag,
  )
  .option('--no-digest', 'check the chains and the seal only')
  .option('--json', 'print the report as JSON')
  .action(async (flags: { digest?: DigestChoice | boolean; json?: boolean }) => {
    // commander: absent → undefined, --no-digest → false, --digest <x> → the parsed choice.
    const choice: DigestChoice =
      flags.digest === false
        ? { kind: 'none' }
        : flags.digest === undefined || flags.digest === true
          ? { kind: 'latest' }
          : flags.digest;
    await withApp(true, async ({ audit }) => {
      const interactive = process.stderr.isTTY && !flags.json;
      const report = await audit.verify(choice, {
        onProgress: (checked) => {
          if (interactive) process.stderr.write(`\rverified ${checked} events…`);
        },
      });
      if (interactive) process.stderr.write('\r\x1b[K');
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(report)}\n`);
      } else {
        const { problem } = report;
        const lines = problem
          ? [
              `${problem.kind.toUpperCase()}: ${problem.reason}`,
              `(${report.events} events in ${report.streams} streams verified before it)`,
            ]
          : [
              `verified ${report.events} events in ${report.streams} streams (${report.sealed} compared with the seal)`,
            ];
        lines.push(describeDigest(report), ...report.limits.map((limit) => `note: ${limit}`));
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (!report.ok) process.exitCode = 1;
    });
  });
