import { startDigestPublisher, type DigestPublisher } from '../../../services/audit/service.js';
import { createAdvisoryLeadership } from '../../../services/database/leadership.js';
import type { App } from '../../app.js';
import type { ServedPart } from './parts.js';

// "cogitave-dg" in ASCII: the advisory lock of the one process that publishes digests.
const PUBLISHER_LOCK_KEY = 0x636f_6769_7461_6467n;

/**
 * Digest publication: a digest of the log every COGITAVE_DIGEST_INTERVAL_MS (when the log
 * moved) and one at shutdown, to the digest folder and, in GitHub mode, the repository. Runs
 * with the projector; with several projector processes on a server Postgres one publishes.
 */
export const auditPart = (app: App): ServedPart => {
  const { audit, auditSettings, database, logger } = app;
  let publisher: DigestPublisher | undefined;
  return {
    routes: [],
    readiness: [],
    describe: {
      digests: auditSettings.digestDir,
      digestSigned: auditSettings.signingKey !== undefined,
    },
    start: () => {
      publisher = startDigestPublisher(audit, {
        intervalMs: auditSettings.digestIntervalMs,
        logger,
        leadership: database.connectionString
          ? createAdvisoryLeadership({
              connectionString: database.connectionString,
              key: PUBLISHER_LOCK_KEY,
              logger,
              what: 'digest publication',
            })
          : undefined,
      });
    },
    drain: () => Promise.resolve(),
    close: async () => {
      await publisher?.stop();
    },
  };
};
