import { formatDigest, type Digest } from '../audit/digest.js';
import type { DigestWitness } from '../audit/publication.js';
import type { GitHubOperations } from './operations.js';

/**
 * The repository as a witness of the log: each published digest becomes a commit of
 * `digests/latest.json` on its own branch (`cogitave/digests` by default, created from the
 * base branch), so GitHub keeps the history of digests beside the pull requests, outside the
 * deployment's database and disks. A branch of its own: the base branch is protected and
 * takes changes through reviewed pull requests only.
 */
export const DIGEST_BRANCH = 'cogitave/digests';
export const DIGEST_PATH = 'digests/latest.json';

export const githubDigestWitness = (
  operations: GitHubOperations,
  branch: string = DIGEST_BRANCH,
): DigestWitness => ({
  name: `github:${operations.repository}@${branch}`,
  publish: (digest: Digest) =>
    operations.ensureFileOnBranch({
      branch,
      path: DIGEST_PATH,
      content: `${formatDigest(digest)}\n`,
      commitMessage: `Digest of ${digest.events} events${digest.root ? ` (root ${digest.root.slice(0, 12)})` : ''} at ${digest.at}`,
    }),
});
