import { Buffer } from 'node:buffer';
import { GitStore, type GitSignature } from './git.js';

/**
 * The double's in-memory GitHub: users, repositories and what lives in them. Records hold
 * facts only; `representations.ts` turns them into the JSON GitHub answers with.
 */

export type UserType = 'User' | 'Bot' | 'Organization';

export interface UserRecord {
  readonly login: string;
  readonly id: number;
  readonly type: UserType;
}

export interface LabelRecord {
  readonly id: number;
  name: string;
  color: string;
  description: string | null;
  readonly default: boolean;
}

export interface CommentRecord {
  readonly id: number;
  body: string;
  readonly user: UserRecord;
  readonly createdAt: string;
  updatedAt: string;
}

export type StateReason = 'completed' | 'not_planned' | 'reopened' | 'duplicate';

export interface PullRecord {
  readonly id: number;
  /** Head branch name in the same repository (the double has no forks). */
  readonly head: string;
  /** Head commit; follows the branch while the pull request is open, frozen once closed. */
  headSha: string;
  base: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: UserRecord | null;
  mergeCommitSha: string | null;
  maintainerCanModify: boolean;
}

/** An issue, or the issue half of a pull request (GitHub numbers both from one sequence). */
export interface IssueRecord {
  readonly id: number;
  readonly number: number;
  title: string;
  body: string | null;
  readonly user: UserRecord;
  labels: LabelRecord[];
  assignees: UserRecord[];
  state: 'open' | 'closed';
  stateReason: StateReason | null;
  locked: boolean;
  readonly comments: CommentRecord[];
  readonly createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  closedBy: UserRecord | null;
  readonly pull: PullRecord | undefined;
}

export interface RepoRecord {
  readonly id: number;
  readonly owner: UserRecord;
  readonly name: string;
  description: string | null;
  readonly private: boolean;
  defaultBranch: string;
  readonly createdAt: string;
  updatedAt: string;
  pushedAt: string;
  /** Lower-cased name → label: GitHub label names are case-insensitive. */
  readonly labels: Map<string, LabelRecord>;
  readonly issues: Map<number, IssueRecord>;
  nextNumber: number;
  readonly git: GitStore;
}

export interface RepositoryOptions {
  /** Default `main`. */
  readonly defaultBranch?: string;
  readonly private?: boolean;
  readonly description?: string;
  /**
   * Files of the first commit on the default branch (path → UTF-8 text). Default a README, as
   * "Initialize this repository with a README" does; `{}` makes an empty repository (no
   * commits, no branches), as GitHub has right after creation without one.
   */
  readonly files?: Readonly<Record<string, string>>;
}

export interface InstallationToken {
  readonly token: string;
  readonly expiresAt: number;
  readonly bot: UserRecord;
}

export const isoSeconds = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export class DoubleState {
  readonly repos = new Map<string, RepoRecord>();
  readonly users = new Map<string, UserRecord>();
  readonly installationTokens = new Map<string, InstallationToken>();
  private nextId = 1000;

  constructor(private readonly clock: () => Date) {}

  now(): string {
    return isoSeconds(this.clock());
  }

  nowMs(): number {
    return this.clock().getTime();
  }

  newId(): number {
    this.nextId += 1;
    return this.nextId;
  }

  user(login: string, type?: UserType): UserRecord {
    const key = login.toLowerCase();
    const known = this.users.get(key);
    if (known) return known;
    const user: UserRecord = {
      login,
      id: this.newId(),
      type: type ?? (login.endsWith('[bot]') ? 'Bot' : 'User'),
    };
    this.users.set(key, user);
    return user;
  }

  signature(user: UserRecord): GitSignature {
    return {
      name: user.login,
      email: `${user.id}+${user.login}@users.noreply.github.com`,
      date: this.now(),
    };
  }

  findRepo(owner: string, name: string): RepoRecord | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  createRepo(owner: string, name: string, options: RepositoryOptions = {}): RepoRecord {
    const key = `${owner}/${name}`.toLowerCase();
    if (this.repos.has(key)) throw new Error(`Repository ${owner}/${name} already exists`);
    const now = this.now();
    const repo: RepoRecord = {
      id: this.newId(),
      owner: this.user(owner),
      name,
      description: options.description ?? null,
      private: options.private ?? false,
      defaultBranch: options.defaultBranch ?? 'main',
      createdAt: now,
      updatedAt: now,
      pushedAt: now,
      labels: new Map(),
      issues: new Map(),
      nextNumber: 1,
      git: new GitStore(),
    };
    const files = options.files ?? { 'README.md': `# ${name}\n` };
    if (Object.keys(files).length > 0) {
      const snapshot = new Map(
        Object.entries(files).map(([path, text]) => [path, repo.git.putBlob(Buffer.from(text))]),
      );
      const who = this.signature(repo.owner);
      const commit = repo.git.commit({
        parents: [],
        files: snapshot,
        message: 'Initial commit',
        author: who,
        committer: who,
      });
      repo.git.refs.set(`refs/heads/${repo.defaultBranch}`, commit.sha);
    }
    this.repos.set(key, repo);
    return repo;
  }

  /** The label named so (any case), created with GitHub's default grey if it is new. */
  ensureLabel(repo: RepoRecord, name: string): LabelRecord {
    const key = name.toLowerCase();
    const known = repo.labels.get(key);
    if (known) return known;
    const label: LabelRecord = {
      id: this.newId(),
      name,
      color: 'ededed',
      description: null,
      default: false,
    };
    repo.labels.set(key, label);
    return label;
  }

  newIssue(
    repo: RepoRecord,
    fields: { title: string; body: string | null; user: UserRecord; pull?: PullRecord },
  ): IssueRecord {
    const now = this.now();
    const issue: IssueRecord = {
      id: fields.pull ? fields.pull.id : this.newId(),
      number: repo.nextNumber,
      title: fields.title,
      body: fields.body,
      user: fields.user,
      labels: [],
      assignees: [],
      state: 'open',
      stateReason: null,
      locked: false,
      comments: [],
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      closedBy: null,
      pull: fields.pull,
    };
    repo.nextNumber += 1;
    repo.issues.set(issue.number, issue);
    return issue;
  }

  /** Open → closed (or back), with the fields GitHub moves along. */
  setIssueState(
    repo: RepoRecord,
    issue: IssueRecord,
    state: 'open' | 'closed',
    by: UserRecord,
    reason?: StateReason | null,
  ): void {
    const now = this.now();
    if (state === 'closed' && issue.state === 'open') {
      issue.state = 'closed';
      // Pull requests carry no state reason; issues close as completed unless told otherwise.
      issue.stateReason = issue.pull ? null : (reason ?? 'completed');
      issue.closedAt = now;
      issue.closedBy = by;
      // A closed pull request keeps the head it had, whatever later happens to the branch.
      if (issue.pull)
        issue.pull.headSha = repo.git.branchSha(issue.pull.head) ?? issue.pull.headSha;
    } else if (state === 'open' && issue.state === 'closed') {
      issue.state = 'open';
      issue.stateReason = 'reopened';
      issue.closedAt = null;
      issue.closedBy = null;
    } else if (state === 'closed' && reason !== undefined) {
      issue.stateReason = reason;
    }
    issue.updatedAt = now;
  }
}
