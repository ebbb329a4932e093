import { createHash } from 'node:crypto';

/**
 * A repository's Git data, kept just deep enough for the REST surface the double serves:
 * blobs, flat commit snapshots (path → blob) and refs. Object ids are real Git SHA-1s (blob,
 * tree and commit encodings as Git writes them), so a `sha` the double hands out is the one
 * `git hash-object` would give for the same content.
 */

export interface GitSignature {
  readonly name: string;
  readonly email: string;
  /** ISO 8601, second precision (`2024-05-01T12:00:00Z`), as GitHub shows it. */
  readonly date: string;
}

export interface GitCommit {
  readonly sha: string;
  readonly treeSha: string;
  /** Every file of the snapshot: path → blob sha. */
  readonly files: ReadonlyMap<string, string>;
  readonly parents: readonly string[];
  readonly message: string;
  readonly author: GitSignature;
  readonly committer: GitSignature;
}

export interface NewCommit {
  readonly parents: readonly string[];
  readonly files: ReadonlyMap<string, string>;
  readonly message: string;
  readonly author: GitSignature;
  readonly committer: GitSignature;
}

const sha1 = (...parts: (string | Buffer)[]): Buffer => {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

const gitObjectId = (type: string, content: Buffer): string =>
  sha1(`${type} ${content.length}\0`, content).toString('hex');

export const blobSha = (content: Buffer): string => gitObjectId('blob', content);

interface TreeNode {
  readonly files: Map<string, string>;
  readonly dirs: Map<string, TreeNode>;
}

const buildTree = (files: ReadonlyMap<string, string>): TreeNode => {
  const root: TreeNode = { files: new Map(), dirs: new Map() };
  for (const [path, sha] of files) {
    const parts = path.split('/');
    const name = parts.pop()!;
    let node = root;
    for (const part of parts) {
      let next = node.dirs.get(part);
      if (!next) {
        next = { files: new Map(), dirs: new Map() };
        node.dirs.set(part, next);
      }
      node = next;
    }
    node.files.set(name, sha);
  }
  return root;
};

const treeNodeSha = (node: TreeNode): string => {
  // Git orders tree entries by name, comparing a directory as if its name ended with '/'.
  const entries = [
    ...[...node.files].map(([name, sha]) => ({ name, key: name, mode: '100644', sha })),
    ...[...node.dirs].map(([name, dir]) => ({
      name,
      key: `${name}/`,
      mode: '40000',
      sha: treeNodeSha(dir),
    })),
  ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const body = Buffer.concat(
    entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.sha, 'hex')]),
  );
  return gitObjectId('tree', body);
};

/** The tree sha of the directory at `dir` ('' for the root), or undefined if it has no files. */
export const treeShaOf = (files: ReadonlyMap<string, string>, dir = ''): string | undefined => {
  let node: TreeNode | undefined = buildTree(files);
  for (const part of dir === '' ? [] : dir.split('/')) node = node?.dirs.get(part);
  return node && treeNodeSha(node);
};

const signatureLine = (role: string, who: GitSignature): string =>
  `${role} ${who.name} <${who.email}> ${Math.floor(Date.parse(who.date) / 1000)} +0000\n`;

export class GitStore {
  readonly blobs = new Map<string, Buffer>();
  readonly commits = new Map<string, GitCommit>();
  /** Fully qualified ref name (`refs/heads/main`) → commit sha. */
  readonly refs = new Map<string, string>();

  putBlob(content: Buffer): string {
    const sha = blobSha(content);
    this.blobs.set(sha, content);
    return sha;
  }

  commit(input: NewCommit): GitCommit {
    const treeSha = treeShaOf(input.files) ?? gitObjectId('tree', Buffer.alloc(0));
    const message = input.message.endsWith('\n') ? input.message : `${input.message}\n`;
    const text =
      `tree ${treeSha}\n` +
      input.parents.map((p) => `parent ${p}\n`).join('') +
      signatureLine('author', input.author) +
      signatureLine('committer', input.committer) +
      `\n${message}`;
    const commit: GitCommit = {
      ...input,
      sha: gitObjectId('commit', Buffer.from(text)),
      treeSha,
      files: new Map(input.files),
    };
    this.commits.set(commit.sha, commit);
    return commit;
  }

  branchSha(branch: string): string | undefined {
    return this.refs.get(`refs/heads/${branch}`);
  }

  /** A branch or tag name, `heads/x`, `refs/heads/x`, or a (possibly abbreviated) commit sha. */
  resolve(ref: string): GitCommit | undefined {
    const candidates = [`refs/heads/${ref}`, `refs/tags/${ref}`, `refs/${ref}`, ref];
    for (const name of candidates) {
      const sha = this.refs.get(name);
      if (sha) return this.commits.get(sha);
    }
    if (/^[0-9a-f]{7,40}$/.test(ref)) {
      for (const [sha, commit] of this.commits) if (sha.startsWith(ref)) return commit;
    }
    return undefined;
  }

  /** Commits reachable from `head`, `head` included. */
  ancestry(head: string): Set<string> {
    const seen = new Set<string>();
    const queue = [head];
    for (let sha = queue.pop(); sha !== undefined; sha = queue.pop()) {
      if (seen.has(sha)) continue;
      seen.add(sha);
      queue.push(...(this.commits.get(sha)?.parents ?? []));
    }
    return seen;
  }

  /** How many commits `head` has that `base` does not (what a pull request would contain). */
  commitsAhead(base: string, head: string): number {
    const behind = this.ancestry(base);
    return [...this.ancestry(head)].filter((sha) => !behind.has(sha)).length;
  }

  text(blob: string): string {
    return this.blobs.get(blob)?.toString('utf8') ?? '';
  }
}
