import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDigest, parseDigest } from '../../../services/audit/digest.js';
import { createAuditService } from '../../../services/audit/service.js';
import { createGitHubOperations } from '../../../services/github/operations.js';
import {
  DIGEST_BRANCH,
  DIGEST_PATH,
  githubDigestWitness,
} from '../../../services/github/digest-witness.js';
import {
  openHarness,
  OWNER,
  REPO,
  REPOSITORY,
  silentLogger,
  type Harness,
} from '../github/harness.js';
import { openAuditBed, type AuditBed } from './support.js';

/**
 * In GitHub mode each published digest is also committed to the repository, on a branch of
 * its own: GitHub keeps the history of digests outside the deployment. Against the GitHub
 * double, which checks every request against GitHub's OpenAPI description.
 */
let harness: Harness;
let bed: AuditBed;

beforeAll(async () => {
  harness = await openHarness('audit_witness');
  bed = await openAuditBed('audit_witness_log');
});

afterAll(async () => {
  await bed.close();
  await harness.close();
});

describe('the GitHub digest witness', () => {
  it('given two publications, when the repository is read, then digests/latest.json on cogitave/digests holds the newest, one commit each, and the base branch is untouched', async () => {
    const witness = githubDigestWitness(
      createGitHubOperations({
        client: harness.client(),
        repository: REPOSITORY,
        logger: silentLogger,
      }),
    );
    const baseBefore = harness.double.listFiles(OWNER, REPO);
    await bed.appendRound(['thing-a'], 2);
    const first = await bed.audit.currentDigest();
    await witness.publish(first);
    await bed.appendRound(['thing-b'], 2);
    const second = await bed.audit.currentDigest();
    await witness.publish(second);
    // The same digest again commits nothing.
    await witness.publish(second);

    const files = harness.double.listFiles(OWNER, REPO, DIGEST_BRANCH);
    const text = files[DIGEST_PATH];
    expect(text?.trim()).toBe(formatDigest(second));
    expect(parseDigest(text ?? '').events).toBe(4);
    expect(harness.double.listFiles(OWNER, REPO)).toEqual(baseBefore);
    expect(harness.double.stats.writes['repos/create-or-update-file-contents']).toBe(2);
    expect(harness.double.violations).toEqual([]);
  });

  it('given the repository failing, when a digest is published, then the folder still gets it and the failed witness is reported', async () => {
    const witness = githubDigestWitness(
      createGitHubOperations({
        client: harness.client({ readRetries: 0 }),
        repository: REPOSITORY,
        logger: silentLogger,
        createPolicy: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 },
      }),
    );
    const service = createAuditService({
      database: bed.database,
      eventStore: bed.store,
      logger: silentLogger,
      digestDir: bed.digestDir,
      witnesses: [witness],
    });
    await bed.appendRound(['thing-c'], 1);
    const fault = harness.double.faults.inject({
      operation: 'repos/create-or-update-file-contents',
      kind: 'error-before-write',
      status: 503,
      times: Infinity,
    });
    const failed = await service.publish();
    fault.cancel();
    expect(failed?.publishedTo).toEqual([`folder:${bed.digestDir}`]);
    expect(failed?.failed.map((f) => f.witness)).toEqual([witness.name]);
    expect((await bed.audit.published()).latest?.events).toBe(failed?.digest.events);
    // The next publication reaches it again.
    const again = await service.publish({ force: true });
    expect(again?.publishedTo).toEqual([`folder:${bed.digestDir}`, witness.name]);
    expect(
      parseDigest(harness.double.listFiles(OWNER, REPO, DIGEST_BRANCH)[DIGEST_PATH] ?? '').events,
    ).toBe(again?.digest.events);
  });
});
