import { Command } from 'commander';
import { formatDigest, rawPublicKey } from '../../services/audit/digest.js';
import { CogitaveError } from '../../services/runtime/errors.js';
import { withApp } from './context.js';

/**
 * `cogitave digest`: seals the log and prints its digest, one line of JSON on stdout — the
 * value `cogitave verify --digest` takes. With --publish it also goes to the digest folder and
 * every witness, as the serve process does periodically.
 */
export const digestCommand = new Command('digest')
  .description(
    'Seal the log and print its digest (events, position, root of the global hash chain, time; Ed25519-signed when a key is configured) as one line of JSON. See services/audit/README.md for how to check one.',
  )
  .option(
    '--publish',
    'also publish it to COGITAVE_DIGEST_DIR (and, in GitHub mode, the repository)',
  )
  .option(
    '--public-key',
    'print the public key digests are checked against (base64, 32 bytes) and exit',
  )
  .action(async (flags: { publish?: boolean; publicKey?: boolean }) => {
    await withApp(true, async ({ audit, auditSettings }) => {
      if (flags.publicKey) {
        if (!auditSettings.trustedKey) {
          throw new CogitaveError(
            'FAILED_PRECONDITION',
            'no digest key is configured: set COGITAVE_DIGEST_SIGNING_KEY (or _FILE) to sign digests, or COGITAVE_DIGEST_PUBLIC_KEY to check them',
          );
        }
        process.stdout.write(`${rawPublicKey(auditSettings.trustedKey)}\n`);
        return;
      }
      if (flags.publish) {
        const publication = await audit.publish({ force: true });
        if (!publication) throw new Error('publish({ force: true }) published nothing');
        process.stdout.write(`${formatDigest(publication.digest)}\n`);
        process.stderr.write(`published to ${publication.publishedTo.join(', ') || 'nowhere'}\n`);
        for (const { witness, reason } of publication.failed) {
          process.stderr.write(`NOT published to ${witness}: ${reason}\n`);
        }
        if (publication.failed.length > 0) process.exitCode = 69;
        return;
      }
      process.stdout.write(`${formatDigest(await audit.currentDigest())}\n`);
    });
  });
