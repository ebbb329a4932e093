import type { RestEndpointMethodTypes as Rest } from '@octokit/rest';
import type { GitCommit } from './git.js';
import { treeShaOf } from './git.js';
import type {
  CommentRecord,
  IssueRecord,
  LabelRecord,
  PullRecord,
  RepoRecord,
  UserRecord,
} from './state.js';

/**
 * Records → the JSON GitHub answers with, typed by Octokit's own response types so a missing
 * field is a compile error, and checked at run time against the OpenAPI response schemas.
 * `url` fields point at the double (so following them works); `html_url` fields look like
 * github.com.
 */

export type IssueJson = Rest['issues']['get']['response']['data'];
export type IssueCommentJson = Rest['issues']['createComment']['response']['data'];
export type LabelJson = Rest['issues']['getLabel']['response']['data'];
export type PullRequestJson = Rest['pulls']['get']['response']['data'];
export type PullRequestSimpleJson = Rest['pulls']['list']['response']['data'][number];
export type RepositoryJson = Rest['repos']['get']['response']['data'];
export type GitRefJson = Rest['git']['getRef']['response']['data'];
export type FileCommitJson = Rest['repos']['createOrUpdateFileContents']['response']['data'];
export type UserJson = PullRequestJson['user'];
type PullOnlyFields =
  | 'merged'
  | 'mergeable'
  | 'rebaseable'
  | 'mergeable_state'
  | 'merged_by'
  | 'comments'
  | 'review_comments'
  | 'maintainer_can_modify'
  | 'commits'
  | 'additions'
  | 'deletions'
  | 'changed_files';
/** A file or directory entry of the contents API (`content-file` / `content-directory` items). */
export interface ContentJson {
  type: 'file' | 'dir';
  size: number;
  name: string;
  path: string;
  sha: string;
  url: string;
  git_url: string | null;
  html_url: string | null;
  download_url: string | null;
  _links: { self: string; git: string | null; html: string | null };
  content?: string;
  encoding?: string;
}

const ZERO_REACTIONS = {
  total_count: 0,
  '+1': 0,
  '-1': 0,
  laugh: 0,
  hooray: 0,
  confused: 0,
  heart: 0,
  rocket: 0,
  eyes: 0,
};

const nodeId = (prefix: string, kind: string, id: number | string): string =>
  `${prefix}_kwDO${Buffer.from(`${kind}:${id}`).toString('base64url')}`;

const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

/** Base64 the way the contents API returns it: wrapped every 60 characters. */
const wrappedBase64 = (data: Buffer): string =>
  (data.toString('base64').match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join('');

export class Representer {
  constructor(
    /** The double's API root, no trailing slash. */
    private readonly api: string,
    /** The web root for html_url fields, no trailing slash. */
    private readonly web: string,
  ) {}

  user(user: UserRecord): UserJson {
    const slug = user.type === 'Bot' ? user.login.replace(/\[bot\]$/, '') : user.login;
    const url = `${this.api}/users/${encodeURIComponent(user.login)}`;
    return {
      login: user.login,
      id: user.id,
      node_id: nodeId(user.type === 'Bot' ? 'BOT' : 'U', 'User', user.id),
      avatar_url: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
      gravatar_id: '',
      url,
      html_url: user.type === 'Bot' ? `${this.web}/apps/${slug}` : `${this.web}/${user.login}`,
      followers_url: `${url}/followers`,
      following_url: `${url}/following{/other_user}`,
      gists_url: `${url}/gists{/gist_id}`,
      starred_url: `${url}/starred{/owner}{/repo}`,
      subscriptions_url: `${url}/subscriptions`,
      organizations_url: `${url}/orgs`,
      repos_url: `${url}/repos`,
      events_url: `${url}/events{/privacy}`,
      received_events_url: `${url}/received_events`,
      type: user.type,
      user_view_type: 'public',
      site_admin: false,
    };
  }

  repository(repo: RepoRecord): RepositoryJson {
    const full = `${repo.owner.login}/${repo.name}`;
    const u = `${this.api}/repos/${full}`;
    const openIssues = [...repo.issues.values()].filter((i) => i.state === 'open').length;
    return {
      id: repo.id,
      node_id: nodeId('R', 'Repository', repo.id),
      name: repo.name,
      full_name: full,
      private: repo.private,
      owner: this.user(repo.owner),
      html_url: `${this.web}/${full}`,
      description: repo.description,
      fork: false,
      url: u,
      forks_url: `${u}/forks`,
      keys_url: `${u}/keys{/key_id}`,
      collaborators_url: `${u}/collaborators{/collaborator}`,
      teams_url: `${u}/teams`,
      hooks_url: `${u}/hooks`,
      issue_events_url: `${u}/issues/events{/number}`,
      events_url: `${u}/events`,
      assignees_url: `${u}/assignees{/user}`,
      branches_url: `${u}/branches{/branch}`,
      tags_url: `${u}/tags`,
      blobs_url: `${u}/git/blobs{/sha}`,
      git_tags_url: `${u}/git/tags{/sha}`,
      git_refs_url: `${u}/git/refs{/sha}`,
      trees_url: `${u}/git/trees{/sha}`,
      statuses_url: `${u}/statuses/{sha}`,
      languages_url: `${u}/languages`,
      stargazers_url: `${u}/stargazers`,
      contributors_url: `${u}/contributors`,
      subscribers_url: `${u}/subscribers`,
      subscription_url: `${u}/subscription`,
      commits_url: `${u}/commits{/sha}`,
      git_commits_url: `${u}/git/commits{/sha}`,
      comments_url: `${u}/comments{/number}`,
      issue_comment_url: `${u}/issues/comments{/number}`,
      contents_url: `${u}/contents/{+path}`,
      compare_url: `${u}/compare/{base}...{head}`,
      merges_url: `${u}/merges`,
      archive_url: `${u}/{archive_format}{/ref}`,
      downloads_url: `${u}/downloads`,
      issues_url: `${u}/issues{/number}`,
      pulls_url: `${u}/pulls{/number}`,
      milestones_url: `${u}/milestones{/number}`,
      notifications_url: `${u}/notifications{?since,all,participating}`,
      labels_url: `${u}/labels{/name}`,
      releases_url: `${u}/releases{/id}`,
      deployments_url: `${u}/deployments`,
      created_at: repo.createdAt,
      updated_at: repo.updatedAt,
      pushed_at: repo.pushedAt,
      git_url: `git://github.com/${full}.git`,
      ssh_url: `git@github.com:${full}.git`,
      clone_url: `${this.web}/${full}.git`,
      svn_url: `${this.web}/${full}`,
      homepage: null,
      size: 0,
      stargazers_count: 0,
      watchers_count: 0,
      language: null,
      has_issues: true,
      has_projects: true,
      has_downloads: true,
      has_wiki: true,
      has_pages: false,
      has_discussions: false,
      forks_count: 0,
      mirror_url: null,
      archived: false,
      disabled: false,
      open_issues_count: openIssues,
      license: null,
      allow_forking: true,
      is_template: false,
      web_commit_signoff_required: false,
      topics: [],
      visibility: repo.private ? 'private' : 'public',
      forks: 0,
      open_issues: openIssues,
      watchers: 0,
      default_branch: repo.defaultBranch,
      permissions: { admin: true, maintain: true, push: true, triage: true, pull: true },
      allow_squash_merge: true,
      allow_merge_commit: true,
      allow_rebase_merge: true,
      allow_auto_merge: false,
      delete_branch_on_merge: false,
      allow_update_branch: false,
      use_squash_pr_title_as_default: false,
      squash_merge_commit_message: 'COMMIT_MESSAGES',
      squash_merge_commit_title: 'COMMIT_OR_PR_TITLE',
      merge_commit_message: 'PR_TITLE',
      merge_commit_title: 'MERGE_MESSAGE',
      network_count: 0,
      subscribers_count: 0,
    };
  }

  label(repo: RepoRecord, label: LabelRecord): LabelJson {
    return {
      id: label.id,
      node_id: nodeId('LA', 'Label', label.id),
      url: `${this.repoApi(repo)}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      color: label.color,
      default: label.default,
      description: label.description,
    };
  }

  issue(repo: RepoRecord, issue: IssueRecord): IssueJson {
    const u = `${this.repoApi(repo)}/issues/${issue.number}`;
    const kind = issue.pull ? 'pull' : 'issues';
    const json: IssueJson = {
      url: u,
      repository_url: this.repoApi(repo),
      labels_url: `${u}/labels{/name}`,
      comments_url: `${u}/comments`,
      events_url: `${u}/events`,
      html_url: `${this.repoWeb(repo)}/${kind}/${issue.number}`,
      id: issue.id,
      node_id: nodeId(issue.pull ? 'PR' : 'I', 'Issue', issue.id),
      number: issue.number,
      title: issue.title,
      user: this.user(issue.user),
      labels: issue.labels.map((label) => this.label(repo, label)),
      state: issue.state,
      locked: issue.locked,
      assignee: issue.assignees[0] ? this.user(issue.assignees[0]) : null,
      assignees: issue.assignees.map((user) => this.user(user)),
      milestone: null,
      comments: issue.comments.length,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      closed_by: issue.closedBy && this.user(issue.closedBy),
      author_association: this.association(repo, issue.user),
      active_lock_reason: null,
      body: issue.body,
      reactions: { url: `${u}/reactions`, ...ZERO_REACTIONS },
      timeline_url: `${u}/timeline`,
      performed_via_github_app: null,
      state_reason: issue.stateReason,
    };
    if (issue.pull) {
      const pulls = `${this.repoWeb(repo)}/pull/${issue.number}`;
      json.draft = issue.pull.draft;
      json.pull_request = {
        url: `${this.repoApi(repo)}/pulls/${issue.number}`,
        html_url: pulls,
        diff_url: `${pulls}.diff`,
        patch_url: `${pulls}.patch`,
        merged_at: issue.pull.mergedAt,
      };
    }
    return json;
  }

  comment(repo: RepoRecord, issue: IssueRecord, comment: CommentRecord): IssueCommentJson {
    const kind = issue.pull ? 'pull' : 'issues';
    return {
      id: comment.id,
      node_id: nodeId('IC', 'IssueComment', comment.id),
      url: `${this.repoApi(repo)}/issues/comments/${comment.id}`,
      html_url: `${this.repoWeb(repo)}/${kind}/${issue.number}#issuecomment-${comment.id}`,
      body: comment.body,
      user: this.user(comment.user),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      issue_url: `${this.repoApi(repo)}/issues/${issue.number}`,
      author_association: this.association(repo, comment.user),
      performed_via_github_app: null,
      reactions: {
        url: `${this.repoApi(repo)}/issues/comments/${comment.id}/reactions`,
        ...ZERO_REACTIONS,
      },
    };
  }

  pullSimple(repo: RepoRecord, issue: IssueRecord & { pull: PullRecord }): PullRequestSimpleJson {
    const common = this.pullCommon(repo, issue);
    // Octokit's types say a listed pull request's label description is a string; GitHub (and
    // its OpenAPI description) send null when there is none.
    return {
      ...common,
      labels: common.labels as PullRequestSimpleJson['labels'],
      requested_teams: [],
    };
  }

  pull(repo: RepoRecord, issue: IssueRecord & { pull: PullRecord }): PullRequestJson {
    const pull = issue.pull;
    const open = issue.state === 'open';
    return {
      ...this.pullCommon(repo, issue),
      merged: pull.merged,
      mergeable: open ? true : null,
      rebaseable: open ? true : null,
      mergeable_state: open ? (pull.draft ? 'draft' : 'clean') : 'unknown',
      merged_by: pull.mergedBy && this.user(pull.mergedBy),
      comments: issue.comments.length,
      review_comments: 0,
      maintainer_can_modify: pull.maintainerCanModify,
      ...this.diffStats(repo, issue),
    };
  }

  /** The fields the list (`pull-request-simple`) and the full representation share. */
  private pullCommon(
    repo: RepoRecord,
    issue: IssueRecord & { pull: PullRecord },
  ): Omit<PullRequestJson, PullOnlyFields> {
    const pull = issue.pull;
    const u = `${this.repoApi(repo)}/pulls/${issue.number}`;
    const html = `${this.repoWeb(repo)}/pull/${issue.number}`;
    const issueUrl = `${this.repoApi(repo)}/issues/${issue.number}`;
    const headSha = this.headSha(repo, issue);
    const baseSha = repo.git.branchSha(pull.base) ?? headSha;
    const owner = this.user(repo.owner);
    // GitHub embeds the same repository object; Octokit types it with the older `repository`
    // schema, which differs from `full-repository` in optional fields only.
    const repository = this.repository(repo) as unknown as PullRequestJson['head']['repo'];
    const link = (href: string) => ({ href });
    return {
      url: u,
      id: pull.id,
      node_id: nodeId('PR', 'PullRequest', pull.id),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueUrl,
      commits_url: `${u}/commits`,
      review_comments_url: `${u}/comments`,
      review_comment_url: `${this.repoApi(repo)}/pulls/comments{/number}`,
      comments_url: `${issueUrl}/comments`,
      statuses_url: `${this.repoApi(repo)}/statuses/${headSha}`,
      number: issue.number,
      state: issue.state,
      locked: issue.locked,
      title: issue.title,
      user: this.user(issue.user),
      body: issue.body,
      labels: issue.labels.map((label) => this.label(repo, label)),
      milestone: null,
      active_lock_reason: null,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      merged_at: pull.mergedAt,
      merge_commit_sha: pull.mergeCommitSha,
      assignee: issue.assignees[0] ? this.user(issue.assignees[0]) : null,
      assignees: issue.assignees.map((user) => this.user(user)),
      requested_reviewers: [],
      requested_teams: [],
      head: {
        label: `${repo.owner.login}:${pull.head}`,
        ref: pull.head,
        sha: headSha,
        user: owner,
        repo: repository,
      },
      base: {
        label: `${repo.owner.login}:${pull.base}`,
        ref: pull.base,
        sha: baseSha,
        user: owner,
        repo: repository,
      },
      _links: {
        self: link(u),
        html: link(html),
        issue: link(issueUrl),
        comments: link(`${issueUrl}/comments`),
        review_comments: link(`${u}/comments`),
        review_comment: link(`${this.repoApi(repo)}/pulls/comments{/number}`),
        commits: link(`${u}/commits`),
        statuses: link(`${this.repoApi(repo)}/statuses/${headSha}`),
      },
      author_association: this.association(repo, issue.user),
      auto_merge: null,
      draft: pull.draft,
    };
  }

  ref(repo: RepoRecord, ref: string, sha: string): GitRefJson {
    return {
      ref,
      node_id: nodeId('REF', 'Ref', `${repo.id}:${ref}`),
      url: `${this.repoApi(repo)}/git/${encodePath(ref)}`,
      object: { sha, type: 'commit', url: `${this.repoApi(repo)}/git/commits/${sha}` },
    };
  }

  /** A file (with its content) or a directory entry (without), as the contents API lists them. */
  content(
    repo: RepoRecord,
    ref: string,
    path: string,
    entry:
      | { type: 'file'; sha: string; data: Buffer; withContent: boolean }
      | { type: 'dir'; sha: string },
  ): ContentJson {
    const name = path.slice(path.lastIndexOf('/') + 1);
    const url = `${this.repoApi(repo)}/contents/${encodePath(path)}?ref=${encodeURIComponent(ref)}`;
    const gitUrl = `${this.repoApi(repo)}/git/${entry.type === 'file' ? 'blobs' : 'trees'}/${entry.sha}`;
    const htmlUrl = `${this.repoWeb(repo)}/${entry.type === 'file' ? 'blob' : 'tree'}/${ref}/${encodePath(path)}`;
    const json: ContentJson = {
      type: entry.type,
      size: entry.type === 'file' ? entry.data.length : 0,
      name,
      path,
      sha: entry.sha,
      url,
      git_url: gitUrl,
      html_url: htmlUrl,
      download_url:
        entry.type === 'file'
          ? `https://raw.githubusercontent.com/${repo.owner.login}/${repo.name}/${ref}/${encodePath(path)}`
          : null,
      _links: { self: url, git: gitUrl, html: htmlUrl },
    };
    if (entry.type === 'file' && entry.withContent) {
      json.content = wrappedBase64(entry.data);
      json.encoding = 'base64';
    }
    return json;
  }

  fileCommit(repo: RepoRecord, branch: string, path: string, commit: GitCommit): FileCommitJson {
    const blob = commit.files.get(path)!;
    const entry = this.content(repo, branch, path, {
      type: 'file',
      sha: blob,
      data: repo.git.blobs.get(blob) ?? Buffer.alloc(0),
      withContent: false,
    });
    const content = {
      name: entry.name,
      path: entry.path,
      sha: entry.sha,
      size: entry.size,
      url: entry.url,
      html_url: entry.html_url ?? '',
      git_url: entry.git_url ?? '',
      download_url: entry.download_url ?? '',
      type: entry.type,
      _links: { self: entry.url, git: entry.git_url ?? '', html: entry.html_url ?? '' },
    };
    return { content, commit: this.commitJson(repo, commit) };
  }

  commitJson(repo: RepoRecord, commit: GitCommit): FileCommitJson['commit'] {
    return {
      sha: commit.sha,
      node_id: nodeId('C', 'Commit', commit.sha),
      url: `${this.repoApi(repo)}/git/commits/${commit.sha}`,
      html_url: `${this.repoWeb(repo)}/commit/${commit.sha}`,
      author: { ...commit.author },
      committer: { ...commit.committer },
      message: commit.message,
      tree: { sha: commit.treeSha, url: `${this.repoApi(repo)}/git/trees/${commit.treeSha}` },
      parents: commit.parents.map((sha) => ({
        sha,
        url: `${this.repoApi(repo)}/git/commits/${sha}`,
        html_url: `${this.repoWeb(repo)}/commit/${sha}`,
      })),
      verification: {
        verified: false,
        reason: 'unsigned',
        signature: null,
        payload: null,
        verified_at: null,
      },
    };
  }

  /** The current head of an open pull request's branch, or the frozen one once closed. */
  headSha(repo: RepoRecord, issue: IssueRecord & { pull: PullRecord }): string {
    if (issue.state === 'open') return repo.git.branchSha(issue.pull.head) ?? issue.pull.headSha;
    return issue.pull.headSha;
  }

  treeSha(files: ReadonlyMap<string, string>, dir: string): string {
    return treeShaOf(files, dir) ?? '';
  }

  private diffStats(
    repo: RepoRecord,
    issue: IssueRecord & { pull: PullRecord },
  ): Pick<PullRequestJson, 'commits' | 'additions' | 'deletions' | 'changed_files'> {
    const git = repo.git;
    const headSha = this.headSha(repo, issue);
    const baseSha = git.branchSha(issue.pull.base);
    const head = git.commits.get(headSha);
    // Compare against the merge base's files; fall back to the base tip.
    const baseAncestry = baseSha ? git.ancestry(baseSha) : new Set<string>();
    const mergeBase = head && [...git.ancestry(head.sha)].find((sha) => baseAncestry.has(sha));
    const base = git.commits.get(mergeBase ?? baseSha ?? '');
    if (!head) return { commits: 0, additions: 0, deletions: 0, changed_files: 0 };
    const before = base?.files ?? new Map<string, string>();
    let additions = 0;
    let deletions = 0;
    let changed = 0;
    for (const path of new Set([...before.keys(), ...head.files.keys()])) {
      const a = before.get(path);
      const b = head.files.get(path);
      if (a === b) continue;
      changed += 1;
      const oldLines = a ? lines(git.text(a)) : [];
      const newLines = b ? lines(git.text(b)) : [];
      const remaining = new Map<string, number>();
      for (const line of oldLines) remaining.set(line, (remaining.get(line) ?? 0) + 1);
      for (const line of newLines) {
        const count = remaining.get(line) ?? 0;
        if (count > 0) remaining.set(line, count - 1);
        else additions += 1;
      }
      for (const count of remaining.values()) deletions += count;
    }
    return {
      commits: baseSha ? git.commitsAhead(baseSha, head.sha) : 1,
      additions,
      deletions,
      changed_files: changed,
    };
  }

  private association(
    repo: RepoRecord,
    user: UserRecord,
  ): NonNullable<IssueJson['author_association']> {
    return user.id === repo.owner.id ? 'OWNER' : user.type === 'Bot' ? 'NONE' : 'COLLABORATOR';
  }

  private repoApi(repo: RepoRecord): string {
    return `${this.api}/repos/${repo.owner.login}/${repo.name}`;
  }

  private repoWeb(repo: RepoRecord): string {
    return `${this.web}/${repo.owner.login}/${repo.name}`;
  }
}

const lines = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));
