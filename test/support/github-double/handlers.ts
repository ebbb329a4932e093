import { randomBytes } from 'node:crypto';
import {
  ApiError,
  NotImplementedError,
  notFound,
  unprocessable,
  validationFailed,
} from './errors.js';
import type { GitCommit, GitSignature } from './git.js';
import type { Representer } from './representations.js';
import type {
  DoubleState,
  IssueRecord,
  LabelRecord,
  PullRecord,
  RepoRecord,
  StateReason,
  UserRecord,
} from './state.js';

/**
 * One function per implemented operation (keyed by GitHub's operationId). The server has
 * already matched the route, authenticated the caller and validated parameters and body
 * against the OpenAPI description, so a handler only enforces GitHub's semantic rules
 * (existence, conflicts) and must check everything before it changes anything: a thrown
 * ApiError means nothing was written.
 */

/** A GitHub App known to the double (registered, or taken on trust from its JWT). */
export interface AppRecord {
  readonly id: string;
  readonly slug: string;
  /** Installations the app has; undefined accepts any installation id. */
  readonly installations: ReadonlySet<number> | undefined;
  readonly permissions: Readonly<Record<string, string>>;
}

export interface HandlerContext {
  readonly operationId: string;
  /** Path and query parameters, coerced to their documented types, defaults applied. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly body: unknown;
  /** Who the credentials belong to (for an app JWT: the app's bot user). */
  readonly actor: UserRecord;
  /** Set when the caller authenticated as a GitHub App (JWT). */
  readonly app: AppRecord | undefined;
  readonly state: DoubleState;
  readonly json: Representer;
  /** The request URL as the client addressed the double (for Link headers). */
  readonly url: URL;
  readonly accept: string;
  readonly autoCreateRepositories: boolean;
  /** Notes a request GitHub answers but silently ignores part of (a likely bug in the caller). */
  readonly ignoredByGitHub: (reason: string) => void;
}

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  /** Non-JSON answers (raw file content). */
  readonly raw?: { readonly contentType: string; readonly data: Buffer };
  readonly headers?: Readonly<Record<string, string>>;
  /** Set when the call changed GitHub's state: what `onWrite` listeners receive. */
  readonly write?: { readonly repository: string | undefined; readonly resource: unknown };
}

export type Handler = (ctx: HandlerContext) => Reply;

// Parameters arrive validated and coerced: strings, numbers or booleans.
const optStr = (ctx: HandlerContext, name: string): string | undefined => {
  const value = ctx.params[name];
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
};
const str = (ctx: HandlerContext, name: string): string => optStr(ctx, name) ?? '';
const int = (ctx: HandlerContext, name: string): number => Number(ctx.params[name]);

const fullName = (repo: RepoRecord): string => `${repo.owner.login}/${repo.name}`;

const repoOf = (ctx: HandlerContext): RepoRecord => {
  const owner = str(ctx, 'owner');
  const name = str(ctx, 'repo');
  const found = ctx.state.findRepo(owner, name);
  if (found) return found;
  if (!ctx.autoCreateRepositories) throw notFound();
  return ctx.state.createRepo(owner, name);
};

const issueOf = (ctx: HandlerContext, repo: RepoRecord, name = 'issue_number'): IssueRecord => {
  const issue = repo.issues.get(int(ctx, name));
  if (!issue) throw notFound();
  return issue;
};

type PullIssue = IssueRecord & { pull: PullRecord };
const isPull = (issue: IssueRecord): issue is PullIssue => issue.pull !== undefined;

const pullOf = (ctx: HandlerContext, repo: RepoRecord): PullIssue => {
  const issue = repo.issues.get(int(ctx, 'pull_number'));
  if (!issue || !isPull(issue)) throw notFound();
  return issue;
};

const created = (
  ctx: HandlerContext,
  repo: RepoRecord | undefined,
  body: unknown,
  location: string,
): Reply => ({
  status: 201,
  body,
  headers: { location },
  write: { repository: repo && fullName(repo), resource: body },
});

const changed = (repo: RepoRecord, body: unknown, status = 200): Reply => ({
  status,
  body,
  write: { repository: fullName(repo), resource: body },
});

/** GitHub's page of a list, with its `Link` header (absent when everything fits one page). */
const paginate = (ctx: HandlerContext, items: readonly unknown[]): Reply => {
  const perPage = Math.min(Math.max(int(ctx, 'per_page') || 30, 1), 100);
  const page = Math.max(int(ctx, 'page') || 1, 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const link = (to: number, rel: string): string => {
    const url = new URL(ctx.url);
    url.searchParams.set('page', String(to));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'));
  return {
    status: 200,
    body: slice,
    ...(links.length > 0 ? { headers: { link: links.join(', ') } } : {}),
  };
};

const labelNames = (labels: readonly unknown[] | undefined): string[] =>
  (labels ?? [])
    .map((label) =>
      typeof label === 'string' ? label : (label as { name?: unknown } | null)?.name,
    )
    .filter((name): name is string => typeof name === 'string' && name.trim() !== '')
    .map((name) => name.trim());

const uniqueLabels = (ctx: HandlerContext, repo: RepoRecord, names: string[]): LabelRecord[] => [
  ...new Set(names.map((name) => ctx.state.ensureLabel(repo, name))),
];

const assigneeLogins = (values: readonly unknown[] | undefined): string[] =>
  (values ?? [])
    .map((value) =>
      typeof value === 'string' ? value : (value as { login?: unknown } | null)?.login,
    )
    .filter((login): login is string => typeof login === 'string' && login !== '');

const signatureFrom = (
  ctx: HandlerContext,
  given: { name?: string; email?: string; date?: string } | undefined,
): GitSignature => {
  const fallback = ctx.state.signature(ctx.actor);
  if (!given?.name || !given.email) return fallback;
  return { name: given.name, email: given.email, date: given.date ?? fallback.date };
};

const decodeBase64 = (content: string): Buffer => {
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw unprocessable('content is not valid Base64');
  }
  return Buffer.from(compact, 'base64');
};

const normalisePath = (path: string): string => path.replace(/^\/+|\/+$/g, '');

// ---------------------------------------------------------------------------------------------
// Repositories and contents

const getRepository: Handler = (ctx) => ({ status: 200, body: ctx.json.repository(repoOf(ctx)) });

const getContent: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const ref = optStr(ctx, 'ref') ?? repo.defaultBranch;
  if (repo.git.refs.size === 0) throw notFound('This repository is empty.');
  const commit = repo.git.resolve(ref);
  if (!commit) throw notFound(`No commit found for the ref ${ref}`);
  const path = normalisePath(str(ctx, 'path'));
  const blob = commit.files.get(path);
  if (blob !== undefined) {
    const data = repo.git.blobs.get(blob) ?? Buffer.alloc(0);
    if (/application\/vnd\.github(\.v3)?\.raw/.test(ctx.accept)) {
      return { status: 200, raw: { contentType: 'text/plain; charset=utf-8', data } };
    }
    return {
      status: 200,
      body: ctx.json.content(repo, ref, path, { type: 'file', sha: blob, data, withContent: true }),
    };
  }
  const prefix = path === '' ? '' : `${path}/`;
  const children = new Map<string, 'file' | 'dir'>();
  for (const file of commit.files.keys()) {
    if (!file.startsWith(prefix)) continue;
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf('/');
    children.set(slash === -1 ? rest : rest.slice(0, slash), slash === -1 ? 'file' : 'dir');
  }
  if (children.size === 0) throw notFound();
  const entries = [...children]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, type]) => {
      const childPath = `${prefix}${name}`;
      if (type === 'dir') {
        const sha = ctx.json.treeSha(commit.files, childPath);
        return ctx.json.content(repo, ref, childPath, { type: 'dir', sha });
      }
      const sha = commit.files.get(childPath)!;
      const data = repo.git.blobs.get(sha) ?? Buffer.alloc(0);
      return ctx.json.content(repo, ref, childPath, {
        type: 'file',
        sha,
        data,
        withContent: false,
      });
    });
  return { status: 200, body: entries };
};

interface FileBody {
  message: string;
  content: string;
  sha: string;
  branch: string;
  committer: { name?: string; email?: string; date?: string };
  author: { name?: string; email?: string; date?: string };
}

/** The branch a contents write lands on, and its tip (undefined for an empty repository). */
const contentsTarget = (repo: RepoRecord, branch: string): { parent: GitCommit | undefined } => {
  const tip = repo.git.branchSha(branch);
  if (tip) return { parent: repo.git.commits.get(tip) };
  // The first commit of an empty repository may only go to its default branch.
  if (repo.git.refs.size === 0 && branch === repo.defaultBranch) return { parent: undefined };
  throw notFound(`Branch ${branch} not found`);
};

const putContent: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const body = (ctx.body ?? {}) as Partial<FileBody>;
  const path = normalisePath(str(ctx, 'path'));
  const branch = body.branch ?? repo.defaultBranch;
  const data = decodeBase64(body.content ?? '');
  const { parent } = contentsTarget(repo, branch);
  const existing = parent?.files.get(path);
  if (existing !== undefined) {
    if (body.sha === undefined) throw unprocessable('Invalid request.\n\n"sha" wasn\'t supplied.');
    if (body.sha !== existing) throw new ApiError(409, `${path} does not match ${body.sha}`);
  }
  const files = new Map(parent?.files ?? []);
  files.set(path, repo.git.putBlob(data));
  const committer = signatureFrom(ctx, body.committer);
  const commit = repo.git.commit({
    parents: parent ? [parent.sha] : [],
    files,
    message: body.message ?? '',
    author: body.author ? signatureFrom(ctx, body.author) : committer,
    committer,
  });
  repo.git.refs.set(`refs/heads/${branch}`, commit.sha);
  repo.pushedAt = ctx.state.now();
  return changed(repo, ctx.json.fileCommit(repo, branch, path, commit), existing ? 200 : 201);
};

const deleteFile: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const body = (ctx.body ?? {}) as Partial<FileBody>;
  const path = normalisePath(str(ctx, 'path'));
  const branch = body.branch ?? repo.defaultBranch;
  const { parent } = contentsTarget(repo, branch);
  const existing = parent?.files.get(path);
  if (!parent || existing === undefined) throw notFound();
  if (body.sha !== existing) throw new ApiError(409, `${path} does not match ${body.sha ?? ''}`);
  const files = new Map(parent.files);
  files.delete(path);
  const committer = signatureFrom(ctx, body.committer);
  const commit = repo.git.commit({
    parents: [parent.sha],
    files,
    message: body.message ?? '',
    author: body.author ? signatureFrom(ctx, body.author) : committer,
    committer,
  });
  repo.git.refs.set(`refs/heads/${branch}`, commit.sha);
  repo.pushedAt = ctx.state.now();
  return changed(repo, { content: null, commit: ctx.json.commitJson(repo, commit) });
};

// ---------------------------------------------------------------------------------------------
// Git references

const fullRef = (ref: string): string => (ref.startsWith('refs/') ? ref : `refs/${ref}`);

const getRef: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const ref = fullRef(str(ctx, 'ref'));
  const sha = repo.git.refs.get(ref);
  if (!sha) throw notFound();
  return { status: 200, body: ctx.json.ref(repo, ref, sha) };
};

const listMatchingRefs: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const prefix = fullRef(str(ctx, 'ref'));
  const refs = [...repo.git.refs]
    .filter(([name]) => name.startsWith(prefix))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, sha]) => ctx.json.ref(repo, name, sha));
  return { status: 200, body: refs };
};

const createRef: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const { ref = '', sha = '' } = (ctx.body ?? {}) as Partial<{ ref: string; sha: string }>;
  if (!ref.startsWith('refs/') || ref.split('/').length < 3) {
    throw unprocessable(`${ref} is not a valid ref name.`);
  }
  if (!repo.git.commits.has(sha)) throw unprocessable('Object does not exist');
  if (repo.git.refs.has(ref)) throw unprocessable('Reference already exists');
  repo.git.refs.set(ref, sha);
  const body = ctx.json.ref(repo, ref, sha);
  return created(ctx, repo, body, body.url);
};

const updateRef: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const ref = fullRef(str(ctx, 'ref'));
  const { sha = '', force = false } = (ctx.body ?? {}) as Partial<{ sha: string; force: boolean }>;
  const current = repo.git.refs.get(ref);
  if (!current) throw unprocessable('Reference does not exist');
  if (!repo.git.commits.has(sha)) throw unprocessable('Object does not exist');
  if (!force && !repo.git.ancestry(sha).has(current)) {
    throw unprocessable('Update is not a fast forward');
  }
  repo.git.refs.set(ref, sha);
  return changed(repo, ctx.json.ref(repo, ref, sha));
};

const deleteRef: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const ref = fullRef(str(ctx, 'ref'));
  if (!repo.git.refs.delete(ref)) throw unprocessable('Reference does not exist');
  return { status: 204, write: { repository: fullName(repo), resource: { ref } } };
};

// ---------------------------------------------------------------------------------------------
// Issues, comments and labels

const sortIssues = (ctx: HandlerContext, issues: IssueRecord[]): IssueRecord[] => {
  const sort = optStr(ctx, 'sort') ?? 'created';
  const direction = optStr(ctx, 'direction') === 'asc' ? 1 : -1;
  const key = (issue: IssueRecord): string | number =>
    sort === 'updated'
      ? issue.updatedAt
      : sort === 'comments'
        ? issue.comments.length
        : issue.createdAt;
  // Ties (same second) fall back to the number, as creation order.
  return issues.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return (ka < kb ? -1 : ka > kb ? 1 : a.number - b.number) * direction;
  });
};

const listIssues: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const state = optStr(ctx, 'state') ?? 'open';
  const wanted = (optStr(ctx, 'labels') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const creator = optStr(ctx, 'creator')?.toLowerCase();
  const assignee = optStr(ctx, 'assignee')?.toLowerCase();
  const since = optStr(ctx, 'since');
  const issues = [...repo.issues.values()].filter((issue) => {
    if (state !== 'all' && issue.state !== state) return false;
    // Every listed label must be on the issue (GitHub ANDs them).
    const names = new Set(issue.labels.map((label) => label.name.toLowerCase()));
    if (!wanted.every((name) => names.has(name))) return false;
    if (creator !== undefined && issue.user.login.toLowerCase() !== creator) return false;
    if (assignee === 'none' && issue.assignees.length > 0) return false;
    if (assignee === '*' && issue.assignees.length === 0) return false;
    if (
      assignee !== undefined &&
      assignee !== 'none' &&
      assignee !== '*' &&
      !issue.assignees.some((user) => user.login.toLowerCase() === assignee)
    ) {
      return false;
    }
    if (since !== undefined && Date.parse(issue.updatedAt) < Date.parse(since)) return false;
    return true;
  });
  return paginate(
    ctx,
    sortIssues(ctx, issues).map((issue) => ctx.json.issue(repo, issue)),
  );
};

interface IssueBody {
  title: string | number | null;
  body: string | null;
  labels: unknown[];
  assignees: unknown[];
  assignee: string | null;
  milestone: string | number | null;
  state: 'open' | 'closed';
  state_reason: StateReason | null;
}

const createIssue: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const body = (ctx.body ?? {}) as Partial<IssueBody>;
  const title = String(body.title ?? '');
  if (title.trim() === '') {
    throw validationFailed({ resource: 'Issue', code: 'missing_field', field: 'title' });
  }
  // The double has no milestones, so any milestone is one GitHub would not find.
  if (body.milestone !== undefined && body.milestone !== null) {
    throw validationFailed({
      resource: 'Issue',
      code: 'invalid',
      field: 'milestone',
      value: body.milestone,
    });
  }
  const issue = ctx.state.newIssue(repo, { title, body: body.body ?? null, user: ctx.actor });
  issue.labels = uniqueLabels(ctx, repo, labelNames(body.labels));
  const logins = assigneeLogins(body.assignees);
  if (body.assignee) logins.push(body.assignee);
  issue.assignees = [...new Set(logins.map((login) => ctx.state.user(login)))];
  const json = ctx.json.issue(repo, issue);
  return created(ctx, repo, json, json.url);
};

const getIssue: Handler = (ctx) => {
  const repo = repoOf(ctx);
  return { status: 200, body: ctx.json.issue(repo, issueOf(ctx, repo)) };
};

const updateIssue: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const issue = issueOf(ctx, repo);
  const body = (ctx.body ?? {}) as Partial<IssueBody>;
  if (body.title !== undefined && body.title !== null && String(body.title).trim() === '') {
    throw validationFailed({ resource: 'Issue', code: 'missing_field', field: 'title' });
  }
  if (body.milestone !== undefined && body.milestone !== null) {
    throw validationFailed({
      resource: 'Issue',
      code: 'invalid',
      field: 'milestone',
      value: body.milestone,
    });
  }
  if (body.state === 'open' && issue.pull?.merged) {
    throw validationFailed({
      resource: 'Issue',
      code: 'custom',
      field: 'state',
      message: 'state cannot be changed. The pull request has been merged.',
    });
  }
  if (body.title !== undefined && body.title !== null) issue.title = String(body.title);
  if (body.body !== undefined) issue.body = body.body;
  if (body.labels !== undefined) issue.labels = uniqueLabels(ctx, repo, labelNames(body.labels));
  if (body.assignees !== undefined || body.assignee !== undefined) {
    const logins = assigneeLogins(body.assignees);
    if (body.assignee) logins.push(body.assignee);
    issue.assignees = [...new Set(logins.map((login) => ctx.state.user(login)))];
  }
  if (body.state !== undefined) {
    ctx.state.setIssueState(repo, issue, body.state, ctx.actor, body.state_reason ?? undefined);
  }
  issue.updatedAt = ctx.state.now();
  return changed(repo, ctx.json.issue(repo, issue));
};

const createComment: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const issue = issueOf(ctx, repo);
  const { body = '' } = (ctx.body ?? {}) as Partial<{ body: string }>;
  if (body.trim() === '') {
    throw validationFailed({ resource: 'IssueComment', code: 'missing_field', field: 'body' });
  }
  const now = ctx.state.now();
  const comment = { id: ctx.state.newId(), body, user: ctx.actor, createdAt: now, updatedAt: now };
  issue.comments.push(comment);
  issue.updatedAt = now;
  const json = ctx.json.comment(repo, issue, comment);
  return created(ctx, repo, json, json.url);
};

const listComments: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const issue = issueOf(ctx, repo);
  const since = optStr(ctx, 'since');
  const comments = issue.comments.filter(
    (comment) => since === undefined || Date.parse(comment.updatedAt) >= Date.parse(since),
  );
  return paginate(
    ctx,
    comments.map((comment) => ctx.json.comment(repo, issue, comment)),
  );
};

const getLabel: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const label = repo.labels.get(str(ctx, 'name').toLowerCase());
  if (!label) throw notFound();
  return { status: 200, body: ctx.json.label(repo, label) };
};

const listLabels: Handler = (ctx) => {
  const repo = repoOf(ctx);
  return paginate(
    ctx,
    [...repo.labels.values()].map((label) => ctx.json.label(repo, label)),
  );
};

const createLabel: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const body = (ctx.body ?? {}) as Partial<{ name: string; color: string; description: string }>;
  const name = (body.name ?? '').trim();
  if (name === '') {
    throw validationFailed({ resource: 'Label', code: 'missing_field', field: 'name' });
  }
  const color = (body.color ?? 'ededed').replace(/^#/, '');
  if (!/^[0-9a-fA-F]{6}$/.test(color)) {
    throw validationFailed({ resource: 'Label', code: 'invalid', field: 'color' });
  }
  if (body.description !== undefined && body.description.length > 100) {
    throw validationFailed({ resource: 'Label', code: 'invalid', field: 'description' });
  }
  if (repo.labels.has(name.toLowerCase())) {
    throw validationFailed({ resource: 'Label', code: 'already_exists', field: 'name' });
  }
  const label = ctx.state.ensureLabel(repo, name);
  label.color = color.toLowerCase();
  label.description = body.description ?? null;
  const json = ctx.json.label(repo, label);
  return created(ctx, repo, json, json.url);
};

const addLabels: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const issue = issueOf(ctx, repo);
  const body = ctx.body;
  const raw = Array.isArray(body)
    ? body
    : typeof body === 'string'
      ? [body]
      : ((body as { labels?: unknown[] } | undefined)?.labels ?? []);
  const names = labelNames(raw);
  if (names.length === 0) {
    throw validationFailed({ resource: 'Label', code: 'missing_field', field: 'labels' });
  }
  issue.labels = [...new Set([...issue.labels, ...uniqueLabels(ctx, repo, names)])];
  issue.updatedAt = ctx.state.now();
  return changed(
    repo,
    issue.labels.map((label) => ctx.json.label(repo, label)),
  );
};

const removeLabel: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const issue = issueOf(ctx, repo);
  const name = str(ctx, 'name').toLowerCase();
  const remaining = issue.labels.filter((label) => label.name.toLowerCase() !== name);
  if (remaining.length === issue.labels.length) throw notFound('Label does not exist');
  issue.labels = remaining;
  issue.updatedAt = ctx.state.now();
  return changed(
    repo,
    issue.labels.map((label) => ctx.json.label(repo, label)),
  );
};

// ---------------------------------------------------------------------------------------------
// Pull requests

/** `owner:branch` or `branch` → the branch, if it names this repository's owner. */
const headBranch = (repo: RepoRecord, head: string): string | undefined => {
  const colon = head.indexOf(':');
  if (colon === -1) return head;
  const owner = head.slice(0, colon);
  return owner.toLowerCase() === repo.owner.login.toLowerCase() ? head.slice(colon + 1) : undefined;
};

const listPulls: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const state = optStr(ctx, 'state') ?? 'open';
  const base = optStr(ctx, 'base');
  let head = optStr(ctx, 'head');
  if (head !== undefined && !head.includes(':')) {
    // GitHub ignores a head filter without its `owner:` prefix and lists every pull request.
    ctx.ignoredByGitHub(
      `pulls/list: head=${head} has no "owner:" prefix, so GitHub ignores the filter`,
    );
    head = undefined;
  }
  const pulls = [...repo.issues.values()].filter(isPull).filter((issue) => {
    if (state !== 'all' && issue.state !== state) return false;
    if (base !== undefined && issue.pull.base !== base) return false;
    if (head !== undefined) {
      const branch = headBranch(repo, head);
      if (branch === undefined || issue.pull.head !== branch) return false;
    }
    return true;
  });
  const sort = optStr(ctx, 'sort') ?? 'created';
  const sorted = sortIssues(
    { ...ctx, params: { ...ctx.params, sort: sort === 'updated' ? 'updated' : 'created' } },
    pulls,
  ) as PullIssue[];
  return paginate(
    ctx,
    sorted.map((issue) => ctx.json.pullSimple(repo, issue)),
  );
};

interface PullBody {
  title: string;
  head: string;
  base: string;
  body: string;
  draft: boolean;
  maintainer_can_modify: boolean;
  issue: number;
  state: 'open' | 'closed';
}

const createPull: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const body = (ctx.body ?? {}) as Partial<PullBody>;
  if (body.issue !== undefined) {
    throw new NotImplementedError('pulls/create from an existing issue');
  }
  const head = body.head ?? '';
  const base = body.base ?? '';
  const title = (body.title ?? '').trim();
  if (title === '') {
    throw validationFailed({ resource: 'PullRequest', code: 'missing_field', field: 'title' });
  }
  const baseSha = repo.git.branchSha(base);
  if (!baseSha) throw validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
  const branch = headBranch(repo, head);
  const headSha = branch === undefined ? undefined : repo.git.branchSha(branch);
  if (branch === undefined || !headSha) {
    throw validationFailed({ resource: 'PullRequest', field: 'head', code: 'invalid' });
  }
  const existing = [...repo.issues.values()]
    .filter(isPull)
    .find(
      (issue) => issue.state === 'open' && issue.pull.head === branch && issue.pull.base === base,
    );
  if (existing) {
    throw validationFailed({
      resource: 'PullRequest',
      code: 'custom',
      message: `A pull request already exists for ${repo.owner.login}:${branch}.`,
    });
  }
  if (repo.git.commitsAhead(baseSha, headSha) === 0) {
    throw validationFailed({
      resource: 'PullRequest',
      code: 'custom',
      message: `No commits between ${base} and ${branch}`,
    });
  }
  const pull: PullRecord = {
    id: ctx.state.newId(),
    head: branch,
    headSha,
    base,
    draft: body.draft ?? false,
    merged: false,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    maintainerCanModify: body.maintainer_can_modify ?? false,
  };
  const issue = ctx.state.newIssue(repo, {
    title,
    body: body.body ?? null,
    user: ctx.actor,
    pull,
  }) as PullIssue;
  const json = ctx.json.pull(repo, issue);
  return created(ctx, repo, json, json.url);
};

const getPull: Handler = (ctx) => {
  const repo = repoOf(ctx);
  return { status: 200, body: ctx.json.pull(repo, pullOf(ctx, repo)) };
};

const updatePull: Handler = (ctx) => {
  const repo = repoOf(ctx);
  const issue = pullOf(ctx, repo);
  const body = (ctx.body ?? {}) as Partial<PullBody>;
  if (body.base !== undefined && !repo.git.branchSha(body.base)) {
    throw validationFailed({ resource: 'PullRequest', field: 'base', code: 'invalid' });
  }
  if (body.state === 'open' && issue.state === 'closed') {
    if (issue.pull.merged) {
      throw validationFailed({
        resource: 'PullRequest',
        code: 'custom',
        field: 'state',
        message: 'state cannot be changed. The pull request has been merged.',
      });
    }
    if (!repo.git.branchSha(issue.pull.head)) {
      throw validationFailed({
        resource: 'PullRequest',
        code: 'custom',
        field: 'state',
        message: 'state cannot be changed. The head branch has been deleted.',
      });
    }
  }
  if (body.title !== undefined) issue.title = body.title;
  if (body.body !== undefined) issue.body = body.body;
  if (body.base !== undefined) issue.pull.base = body.base;
  if (body.maintainer_can_modify !== undefined) {
    issue.pull.maintainerCanModify = body.maintainer_can_modify;
  }
  if (body.state !== undefined) ctx.state.setIssueState(repo, issue, body.state, ctx.actor);
  issue.updatedAt = ctx.state.now();
  return changed(repo, ctx.json.pull(repo, issue));
};

// ---------------------------------------------------------------------------------------------
// GitHub Apps

const createInstallationToken: Handler = (ctx) => {
  const app = ctx.app;
  if (!app) throw new ApiError(401, 'A JSON web token could not be decoded');
  const installationId = int(ctx, 'installation_id');
  if (app.installations && !app.installations.has(installationId)) throw notFound();
  const body = (ctx.body ?? {}) as Partial<{
    permissions: Record<string, string>;
    repositories: string[];
    repository_ids: number[];
  }>;
  const token = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`;
  // Tokens live an hour, measured on the real clock: auth-app caches them by it.
  const expiresAt = Date.now() + 60 * 60 * 1000;
  const bot = ctx.state.user(`${app.slug}[bot]`, 'Bot');
  ctx.state.installationTokens.set(token, { token, expiresAt, bot });
  const repositories = (body.repositories ?? [])
    .map((name) =>
      [...ctx.state.repos.values()].find((repo) => repo.name.toLowerCase() === name.toLowerCase()),
    )
    .filter((repo): repo is RepoRecord => repo !== undefined);
  const selected = body.repositories !== undefined || body.repository_ids !== undefined;
  return {
    status: 201,
    body: {
      token,
      expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      permissions: body.permissions ?? app.permissions,
      repository_selection: selected ? 'selected' : 'all',
      ...(selected ? { repositories: repositories.map((repo) => ctx.json.repository(repo)) } : {}),
    },
    // Minting a token is not a change to anything a test inspects, so it is no `write`.
  };
};

/** Implemented operations, by GitHub's operationId. */
export const handlers: Readonly<Record<string, Handler>> = {
  'repos/get': getRepository,
  'repos/get-content': getContent,
  'repos/create-or-update-file-contents': putContent,
  'repos/delete-file': deleteFile,
  'git/get-ref': getRef,
  'git/list-matching-refs': listMatchingRefs,
  'git/create-ref': createRef,
  'git/update-ref': updateRef,
  'git/delete-ref': deleteRef,
  'issues/list-for-repo': listIssues,
  'issues/create': createIssue,
  'issues/get': getIssue,
  'issues/update': updateIssue,
  'issues/create-comment': createComment,
  'issues/list-comments': listComments,
  'issues/get-label': getLabel,
  'issues/list-labels-for-repo': listLabels,
  'issues/create-label': createLabel,
  'issues/add-labels': addLabels,
  'issues/remove-label': removeLabel,
  'pulls/list': listPulls,
  'pulls/create': createPull,
  'pulls/get': getPull,
  'pulls/update': updatePull,
  'apps/create-installation-access-token': createInstallationToken,
};
