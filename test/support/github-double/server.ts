import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, NotImplementedError } from './errors.js';
import { FaultController, type CallInfo, type FaultKind, type PlannedFault } from './faults.js';
import { handlers, type AppRecord, type HandlerContext, type Reply } from './handlers.js';
import { loadOpenApi, type OpenApi, type RouteMatch } from './openapi.js';
import {
  Representer,
  type IssueCommentJson,
  type IssueJson,
  type LabelJson,
  type PullRequestJson,
  type RepositoryJson,
  type UserJson,
} from './representations.js';
import {
  DoubleState,
  type IssueRecord,
  type PullRecord,
  type RepoRecord,
  type RepositoryOptions,
  type StateReason,
  type UserRecord,
} from './state.js';

export interface GitHubDoubleOptions {
  /** Login that personal tokens (`token …`, `Bearer …`) authenticate as. Default `cogitave-test`. */
  readonly login?: string;
  /**
   * Check every answer against the OpenAPI response schema of its operation and status, and
   * record mismatches as violations (kind `response`). Default true.
   */
  readonly validateResponses?: boolean;
  /**
   * Refuse query parameters and top-level body properties the operation does not declare.
   * GitHub ignores them silently, which hides typos (`label` for `labels`). Default true.
   */
  readonly rejectUnknownParameters?: boolean;
  /** Create a repository (default branch `main`, one README commit) on first use. Default true. */
  readonly autoCreateRepositories?: boolean;
  /** Web root for `html_url` fields. Default `https://github.com`. */
  readonly webUrl?: string;
  /** Clock for `created_at`, `updated_at`, commit dates… (auth checks use the real clock). */
  readonly now?: () => Date;
}

export type ViolationKind =
  /** No operation of the description matches the method + path. */
  | 'route'
  /** A path parameter has the wrong type (GitHub answers 404). */
  | 'path'
  /** A query parameter is unknown, mistyped or out of its enum. */
  | 'query'
  /** The body is not JSON, or not what the operation's schema accepts. */
  | 'body'
  /** Missing or refused credentials. */
  | 'auth'
  /** A documented operation the double does not implement (yet). */
  | 'unimplemented'
  /** The double answered something that does not match GitHub's response schema. */
  | 'response'
  /** A valid request of which GitHub silently ignores a part (e.g. `head` without `owner:`). */
  | 'ignored-by-github'
  /** The double itself failed. */
  | 'internal';

export interface Violation {
  readonly method: string;
  /** Path and query string as requested. */
  readonly path: string;
  readonly operationId?: string;
  readonly kind: ViolationKind;
  readonly reason: string;
  /** The status the double answered with. */
  readonly status: number;
}

export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  /** The answered status, or `timeout` when the socket was destroyed instead. */
  readonly status: number | 'timeout';
  readonly fault?: FaultKind;
}

export interface WriteEvent {
  /** operationId, e.g. `issues/create`. */
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  /** `owner/name`, when the write is in a repository. */
  readonly repository: string | undefined;
  readonly status: number;
  /** The resource as GitHub answers with it (issue, pull request, ref, file commit…). */
  readonly resource: unknown;
}

/**
 * Called after GitHub performed a write and before the client gets the answer; the answer
 * waits for a returned promise (a crash test can kill its process there).
 */
export type WriteListener = (event: WriteEvent) => void | Promise<void>;

export interface DoubleStats {
  /** Calls per operationId (every call matched to an operation, refused or not). */
  readonly calls: Record<string, number>;
  /** Successful writes per operationId (including those answered with an injected error). */
  readonly writes: Record<string, number>;
  /** Faults injected, per kind. */
  readonly faults: Partial<Record<FaultKind, number>>;
}

export interface AppRegistration {
  readonly appId: number | string;
  /** The app's private key (PEM or KeyObject); its public half verifies the app's JWTs. */
  readonly privateKey?: string | KeyObject;
  /** Or the public key alone. */
  readonly publicKey?: string | KeyObject;
  /** Slug of the app; its bot user is `<slug>[bot]`. Default `cogitave-app-<appId>`. */
  readonly slug?: string;
  /** Installation ids of the app. Default: any id is an installation. */
  readonly installations?: readonly number[];
  /** Permissions its installation tokens carry. */
  readonly permissions?: Readonly<Record<string, string>>;
}

interface RegisteredApp extends AppRecord {
  readonly publicKey: KeyObject | undefined;
}

const DEFAULT_PERMISSIONS = {
  contents: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
} as const;

const SERVER_ERRORS = {
  500: 'Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
} as const;

const SECONDARY_LIMIT_DOCS =
  'https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits';
const PRIMARY_LIMIT_DOCS =
  'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit';

const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const requestId = (): string =>
  randomBytes(10).toString('hex').toUpperCase().match(/.{4}/g)!.join(':');

type Authenticated =
  | { readonly actor: UserRecord; readonly app: AppRecord | undefined }
  | { readonly error: ApiError };

/** The running double. Create it with `startGitHubDouble`. */
export class GitHubDouble {
  readonly faults = new FaultController();
  private state: DoubleState;
  private readonly json: Representer;
  private readonly apps = new Map<string, RegisteredApp>();
  private listeners: WriteListener[] = [];
  private violationList: Violation[] = [];
  private requestList: RequestRecord[] = [];
  private statsObject: DoubleStats = { calls: {}, writes: {}, faults: {} };
  private readonly held = new Set<{ timer: NodeJS.Timeout; res: ServerResponse }>();
  private rateLimitUsed = 0;
  private readonly clock: () => Date;

  private constructor(
    private readonly server: Server,
    private readonly openapi: OpenApi,
    readonly url: string,
    private readonly options: GitHubDoubleOptions,
  ) {
    this.clock = options.now ?? (() => new Date());
    this.state = new DoubleState(this.clock);
    this.json = new Representer(url, (options.webUrl ?? 'https://github.com').replace(/\/$/, ''));
  }

  static async start(options: GitHubDoubleOptions = {}): Promise<GitHubDouble> {
    const openapi = await loadOpenApi();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    const double = new GitHubDouble(server, openapi, `http://127.0.0.1:${port}`, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      double.handle(req, res).catch(() => {
        // Only reachable if answering itself failed (e.g. the socket is gone).
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    return double;
  }

  /** Requests that broke GitHub's contract (or that the double could not serve). Live array. */
  get violations(): readonly Violation[] {
    return this.violationList;
  }

  /** Every request, in arrival order. Live array. */
  get requests(): readonly RequestRecord[] {
    return this.requestList;
  }

  get stats(): DoubleStats {
    return this.statsObject;
  }

  // -------------------------------------------------------------------------------------------
  // Set-up

  createRepository(owner: string, name: string, options?: RepositoryOptions): RepositoryJson {
    return this.json.repository(this.state.createRepo(owner, name, options));
  }

  /** Makes the double know a GitHub App, so it verifies its JWTs and issues its tokens. */
  registerApp(app: AppRegistration): { readonly appId: string; readonly slug: string } {
    const appId = String(app.appId);
    const slug = app.slug ?? `cogitave-app-${appId}`;
    const key = app.publicKey ?? app.privateKey;
    this.apps.set(appId, {
      id: appId,
      slug,
      publicKey: key === undefined ? undefined : createPublicKey(key),
      installations: app.installations && new Set(app.installations),
      permissions: app.permissions ?? DEFAULT_PERMISSIONS,
    });
    return { appId, slug };
  }

  /** Called after each successful write, before its answer is sent. Returns an unsubscribe. */
  onWrite(listener: WriteListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Forget repositories, users, tokens, faults, listeners, stats, requests and violations. */
  reset(): void {
    this.state = new DoubleState(this.clock);
    this.faults.clear();
    this.listeners = [];
    this.violationList = [];
    this.requestList = [];
    this.statsObject = { calls: {}, writes: {}, faults: {} };
  }

  async close(): Promise<void> {
    for (const { timer, res } of this.held) {
      clearTimeout(timer);
      res.socket?.destroy();
    }
    this.held.clear();
    const closed = new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
    this.server.closeAllConnections();
    await closed;
  }

  // -------------------------------------------------------------------------------------------
  // Inspection (what GitHub now holds, as GitHub would show it)

  getRepository(owner: string, repo: string): RepositoryJson {
    return this.json.repository(this.repo(owner, repo));
  }

  /** Issues of the repository, oldest first. Pull requests only with `includePulls`. */
  listIssues(owner: string, repo: string, options: { includePulls?: boolean } = {}): IssueJson[] {
    const record = this.repo(owner, repo);
    return [...record.issues.values()]
      .filter((issue) => options.includePulls === true || !issue.pull)
      .map((issue) => this.json.issue(record, issue));
  }

  getIssue(owner: string, repo: string, number: number): IssueJson {
    const record = this.repo(owner, repo);
    return this.json.issue(record, this.issue(record, number));
  }

  listComments(owner: string, repo: string, number: number): IssueCommentJson[] {
    const record = this.repo(owner, repo);
    const issue = this.issue(record, number);
    return issue.comments.map((comment) => this.json.comment(record, issue, comment));
  }

  listLabels(owner: string, repo: string): LabelJson[] {
    const record = this.repo(owner, repo);
    return [...record.labels.values()].map((label) => this.json.label(record, label));
  }

  /** Pull requests of the repository, oldest first. */
  listPullRequests(owner: string, repo: string): PullRequestJson[] {
    const record = this.repo(owner, repo);
    return [...record.issues.values()]
      .filter((issue): issue is IssueRecord & { pull: PullRecord } => issue.pull !== undefined)
      .map((issue) => this.json.pull(record, issue));
  }

  getPullRequest(owner: string, repo: string, number: number): PullRequestJson {
    const record = this.repo(owner, repo);
    return this.json.pull(record, this.pull(record, number));
  }

  /** Every ref (`refs/heads/main`, …) and the commit it points at, sorted by name. */
  listRefs(owner: string, repo: string): { ref: string; sha: string }[] {
    return [...this.repo(owner, repo).git.refs]
      .map(([ref, sha]) => ({ ref, sha }))
      .sort((a, b) => (a.ref < b.ref ? -1 : 1));
  }

  /** Files at a branch, tag or sha (default branch by default): path → UTF-8 text. */
  listFiles(owner: string, repo: string, ref?: string): Record<string, string> {
    const record = this.repo(owner, repo);
    const commit = record.git.resolve(ref ?? record.defaultBranch);
    if (!commit) return {};
    return Object.fromEntries(
      [...commit.files]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, blob]) => [path, record.git.text(blob)]),
    );
  }

  /** A user as GitHub shows it (e.g. the `sender` of a webhook payload). */
  user(login: string): UserJson {
    return this.json.user(this.state.user(login));
  }

  // -------------------------------------------------------------------------------------------
  // Maintainer actions (what people do on github.com; no API call, no onWrite)

  /**
   * Merges an open pull request with a merge commit on its base branch, as the merge button
   * does. A draft is marked ready first (GitHub does not merge drafts).
   */
  mergePullRequest(
    owner: string,
    repo: string,
    number: number,
    options: { mergedBy?: string; commitTitle?: string } = {},
  ): PullRequestJson {
    const record = this.repo(owner, repo);
    const issue = this.pull(record, number);
    if (issue.state !== 'open') throw new Error(`Pull request #${number} is not open`);
    const git = record.git;
    const by = this.state.user(options.mergedBy ?? record.owner.login);
    const headSha = git.branchSha(issue.pull.head) ?? issue.pull.headSha;
    const baseSha = git.branchSha(issue.pull.base);
    const head = git.commits.get(headSha);
    const base = baseSha === undefined ? undefined : git.commits.get(baseSha);
    if (!head || !base) throw new Error(`Pull request #${number} has a missing head or base`);
    // Three-way merge by file: take the head's side of every file it changed since the
    // merge base (the double does not model conflicts).
    const baseAncestry = git.ancestry(base.sha);
    const mergeBaseSha = [...git.ancestry(head.sha)].find((sha) => baseAncestry.has(sha));
    const mergeBase = mergeBaseSha === undefined ? undefined : git.commits.get(mergeBaseSha);
    const files = new Map(base.files);
    for (const path of new Set([...(mergeBase?.files.keys() ?? []), ...head.files.keys()])) {
      const before = mergeBase?.files.get(path);
      const after = head.files.get(path);
      if (before === after) continue;
      if (after === undefined) files.delete(path);
      else files.set(path, after);
    }
    const signature = this.state.signature(by);
    const merge = git.commit({
      parents: [base.sha, head.sha],
      files,
      message: `${options.commitTitle ?? `Merge pull request #${number} from ${record.owner.login}/${issue.pull.head}`}\n\n${issue.title}`,
      author: signature,
      committer: { name: 'GitHub', email: 'noreply@github.com', date: signature.date },
    });
    git.refs.set(`refs/heads/${issue.pull.base}`, merge.sha);
    record.pushedAt = this.state.now();
    issue.pull.draft = false;
    issue.pull.headSha = head.sha;
    issue.pull.merged = true;
    issue.pull.mergedAt = this.state.now();
    issue.pull.mergedBy = by;
    issue.pull.mergeCommitSha = merge.sha;
    this.state.setIssueState(record, issue, 'closed', by);
    return this.json.pull(record, issue);
  }

  /** Closes a pull request without merging it. */
  closePullRequest(
    owner: string,
    repo: string,
    number: number,
    options: { closedBy?: string } = {},
  ): PullRequestJson {
    const record = this.repo(owner, repo);
    const issue = this.pull(record, number);
    const by = this.state.user(options.closedBy ?? record.owner.login);
    this.state.setIssueState(record, issue, 'closed', by);
    return this.json.pull(record, issue);
  }

  /** Reopens a closed, unmerged pull request, as GitHub's "Reopen" button does. */
  reopenPullRequest(
    owner: string,
    repo: string,
    number: number,
    options: { by?: string } = {},
  ): PullRequestJson {
    const record = this.repo(owner, repo);
    const issue = this.pull(record, number);
    this.state.setIssueState(
      record,
      issue,
      'open',
      this.state.user(options.by ?? record.owner.login),
    );
    return this.json.pull(record, issue);
  }

  /**
   * Deletes a branch, as the branch's "Delete" button does; GitHub closes the open pull
   * requests whose head it was (unmerged).
   */
  deleteBranch(owner: string, repo: string, branch: string, options: { by?: string } = {}): void {
    const record = this.repo(owner, repo);
    if (!record.git.refs.delete(`refs/heads/${branch}`)) {
      throw new Error(`Branch ${branch} does not exist`);
    }
    const by = this.state.user(options.by ?? record.owner.login);
    for (const issue of record.issues.values()) {
      if (issue.pull?.head === branch && issue.state === 'open') {
        this.state.setIssueState(record, issue, 'closed', by);
      }
    }
  }

  /**
   * A commit pushed by hand to a branch, writing `content` to `path` (null deletes it).
   * Returns the commit sha (the push's `after`).
   */
  commitFile(
    owner: string,
    repo: string,
    branch: string,
    change: { path: string; content: string | null; message?: string },
    options: { by?: string } = {},
  ): string {
    const record = this.repo(owner, repo);
    const git = record.git;
    const parentSha = git.branchSha(branch);
    const parent = parentSha === undefined ? undefined : git.commits.get(parentSha);
    if (!parent) throw new Error(`Branch ${branch} does not exist`);
    const files = new Map(parent.files);
    if (change.content === null) files.delete(change.path);
    else files.set(change.path, git.putBlob(Buffer.from(change.content, 'utf8')));
    const signature = this.state.signature(this.state.user(options.by ?? record.owner.login));
    const commit = git.commit({
      parents: [parent.sha],
      files,
      message: change.message ?? `Update ${change.path}`,
      author: signature,
      committer: signature,
    });
    git.refs.set(`refs/heads/${branch}`, commit.sha);
    record.pushedAt = this.state.now();
    return commit.sha;
  }

  /** Closes an issue, as completed unless told otherwise. */
  closeIssue(
    owner: string,
    repo: string,
    number: number,
    options: { stateReason?: Exclude<StateReason, 'reopened'>; closedBy?: string } = {},
  ): IssueJson {
    const record = this.repo(owner, repo);
    const issue = this.issue(record, number);
    const by = this.state.user(options.closedBy ?? record.owner.login);
    this.state.setIssueState(record, issue, 'closed', by, options.stateReason ?? 'completed');
    return this.json.issue(record, issue);
  }

  reopenIssue(
    owner: string,
    repo: string,
    number: number,
    options: { by?: string } = {},
  ): IssueJson {
    const record = this.repo(owner, repo);
    const issue = this.issue(record, number);
    this.state.setIssueState(
      record,
      issue,
      'open',
      this.state.user(options.by ?? record.owner.login),
    );
    return this.json.issue(record, issue);
  }

  /** Comments on an issue or pull request as `by` (default the owner). */
  addComment(
    owner: string,
    repo: string,
    number: number,
    body: string,
    options: { by?: string } = {},
  ): IssueCommentJson {
    const record = this.repo(owner, repo);
    const issue = this.issue(record, number);
    const now = this.state.now();
    const comment = {
      id: this.state.newId(),
      body,
      user: this.state.user(options.by ?? record.owner.login),
      createdAt: now,
      updatedAt: now,
    };
    issue.comments.push(comment);
    issue.updatedAt = now;
    return this.json.comment(record, issue, comment);
  }

  /** Adds labels to an issue or pull request (creating unknown labels). */
  addLabels(owner: string, repo: string, number: number, labels: readonly string[]): IssueJson {
    const record = this.repo(owner, repo);
    const issue = this.issue(record, number);
    const added = labels.map((name) => this.state.ensureLabel(record, name));
    issue.labels = [...new Set([...issue.labels, ...added])];
    issue.updatedAt = this.state.now();
    return this.json.issue(record, issue);
  }

  private repo(owner: string, name: string): RepoRecord {
    const record = this.state.findRepo(owner, name);
    if (!record) throw new Error(`The double has no repository ${owner}/${name}`);
    return record;
  }

  private issue(record: RepoRecord, number: number): IssueRecord {
    const issue = record.issues.get(number);
    if (!issue) throw new Error(`${record.owner.login}/${record.name} has no issue #${number}`);
    return issue;
  }

  private pull(record: RepoRecord, number: number): IssueRecord & { pull: PullRecord } {
    const issue = this.issue(record, number);
    if (!issue.pull) throw new Error(`#${number} is an issue, not a pull request`);
    return issue as IssueRecord & { pull: PullRecord };
  }

  // -------------------------------------------------------------------------------------------
  // Serving

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const target = req.url ?? '/';
    const url = new URL(target, this.url);
    const raw = await readBody(req);
    const match = this.openapi.match(method, url.pathname);
    if (!match) {
      const reason = `No operation of GitHub's REST API is ${method} ${url.pathname}`;
      this.violate({ method, path: target, kind: 'route', reason, status: 404 });
      this.send(res, { method, path: target }, { status: 404, body: { message: 'Not Found' } });
      return;
    }
    const op = match.operationId;
    this.statsObject.calls[op] = (this.statsObject.calls[op] ?? 0) + 1;
    const where = { method, path: target, operationId: op };

    const auth = this.authenticate(req, match);
    if ('error' in auth) {
      this.violate({
        ...where,
        kind: 'auth',
        reason: auth.error.message,
        status: auth.error.status,
      });
      this.sendError(res, where, auth.error);
      return;
    }

    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        this.violate({ ...where, kind: 'body', reason: 'Body is not JSON', status: 400 });
        this.sendError(res, where, new ApiError(400, 'Problems parsing JSON'));
        return;
      }
    }
    const checked = this.openapi.checkRequest(
      match,
      url.searchParams,
      body,
      this.options.rejectUnknownParameters ?? true,
    );
    if (checked.problems.length > 0) {
      const first = checked.problems[0]!;
      const status = first.where === 'path' ? 404 : 422;
      for (const problem of checked.problems) {
        this.violate({ ...where, kind: problem.where, reason: problem.message, status });
      }
      const message =
        status === 404 ? 'Not Found' : checked.problems.map((p) => p.message).join('\n');
      this.sendError(res, where, new ApiError(status, message));
      return;
    }

    const call: CallInfo = {
      method,
      path: url.pathname,
      operationId: op,
      template: match.template,
      params: checked.params,
      body,
    };
    const fault = this.faults.take(call);
    if (fault) this.statsObject.faults[fault.kind] = (this.statsObject.faults[fault.kind] ?? 0) + 1;
    const context: HandlerContext = {
      operationId: op,
      params: checked.params,
      body,
      actor: auth.actor,
      app: auth.app,
      state: this.state,
      json: this.json,
      url,
      accept: req.headers.accept ?? '',
      autoCreateRepositories: this.options.autoCreateRepositories ?? true,
      ignoredByGitHub: (reason) => {
        this.violate({ ...where, kind: 'ignored-by-github', reason, status: 200 });
      },
    };

    if (fault && !this.performsFirst(fault)) {
      this.answerFault(res, where, fault, call, auth.actor);
      return;
    }
    const reply = await this.run(context, where);
    if (fault) {
      this.answerFault(res, where, fault, call, auth.actor);
      return;
    }
    if (reply instanceof ApiError) this.sendError(res, where, reply);
    else this.send(res, where, reply);
  }

  /** Runs the handler; a successful write is counted and announced before anything is sent. */
  private async run(
    context: HandlerContext,
    where: { method: string; path: string; operationId: string },
  ): Promise<Reply | ApiError> {
    const handler = handlers[context.operationId];
    let reply: Reply;
    try {
      if (!handler) throw new NotImplementedError(`${context.operationId} is not implemented`);
      reply = handler(context);
    } catch (error) {
      if (error instanceof ApiError) return error;
      const unimplemented = error instanceof NotImplementedError;
      const reason = error instanceof Error ? error.message : String(error);
      this.violate({
        ...where,
        kind: unimplemented ? 'unimplemented' : 'internal',
        reason: unimplemented ? `The GitHub double does not implement ${reason}` : reason,
        status: unimplemented ? 501 : 500,
      });
      return new ApiError(unimplemented ? 501 : 500, unimplemented ? 'Not Implemented' : reason);
    }
    if (reply.write && reply.status < 400) {
      const op = where.operationId;
      this.statsObject.writes[op] = (this.statsObject.writes[op] ?? 0) + 1;
      const event: WriteEvent = {
        operation: op,
        method: where.method,
        path: where.path,
        repository: reply.write.repository,
        status: reply.status,
        resource: reply.write.resource,
      };
      for (const listener of [...this.listeners]) await listener(event);
    }
    return reply;
  }

  private performsFirst(fault: PlannedFault): boolean {
    return (
      fault.kind === 'error-after-write' || (fault.kind === 'timeout' && fault.afterWrite === true)
    );
  }

  private answerFault(
    res: ServerResponse,
    where: { method: string; path: string; operationId: string },
    fault: PlannedFault,
    call: CallInfo,
    actor: UserRecord,
  ): void {
    const retryAfter = fault.retryAfter ?? 1;
    switch (fault.kind) {
      case 'error-after-write':
      case 'error-before-write': {
        const status = fault.status ?? 500;
        this.sendError(res, where, new ApiError(status, SERVER_ERRORS[status]), fault.kind);
        return;
      }
      case 'timeout': {
        const entry = {
          res,
          timer: setTimeout(() => {
            this.held.delete(entry);
            this.requestList.push({ ...where, status: 'timeout', fault: 'timeout' });
            res.socket?.destroy();
          }, fault.ms ?? 1000),
        };
        this.held.add(entry);
        return;
      }
      case 'secondary-rate-limit':
      case 'rate-limit-429': {
        const message =
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. ' +
          `If you reach out to GitHub Support for help, please include the request ID ${requestId()}.`;
        const status = fault.kind === 'secondary-rate-limit' ? 403 : 429;
        const error = new ApiError(status, message, undefined, {
          'retry-after': String(retryAfter),
        });
        this.sendError(res, where, error, fault.kind, SECONDARY_LIMIT_DOCS);
        return;
      }
      case 'primary-rate-limit': {
        const reset = Math.ceil(Date.now() / 1000) + retryAfter;
        const message =
          `API rate limit exceeded for user ID ${actor.id}. If you reach out to GitHub Support for help, ` +
          `please include the request ID ${requestId()} and timestamp ${new Date().toISOString()}.`;
        const error = new ApiError(403, message, undefined, {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(reset),
          'x-ratelimit-used': '5000',
        });
        this.sendError(res, where, error, fault.kind, PRIMARY_LIMIT_DOCS);
        return;
      }
      case 'already-exists':
        this.sendError(res, where, this.alreadyExists(call), fault.kind);
        return;
    }
  }

  /** The 422 GitHub gives when what the call creates is already there. */
  private alreadyExists(call: CallInfo): ApiError {
    const body = (call.body ?? {}) as { head?: unknown; name?: unknown };
    switch (call.operationId) {
      case 'git/create-ref':
        return new ApiError(422, 'Reference already exists');
      case 'pulls/create': {
        const head = typeof body.head === 'string' ? body.head : '';
        const label = head.includes(':') ? head : `${String(call.params.owner)}:${head}`;
        return new ApiError(422, 'Validation Failed', [
          {
            resource: 'PullRequest',
            code: 'custom',
            message: `A pull request already exists for ${label}.`,
          },
        ]);
      }
      case 'repos/create-or-update-file-contents':
        return new ApiError(422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
      case 'issues/create-label':
        return new ApiError(422, 'Validation Failed', [
          { resource: 'Label', code: 'already_exists', field: 'name' },
        ]);
      default: {
        const resource = call.operationId.split('/')[0] ?? 'Resource';
        return new ApiError(422, 'Validation Failed', [{ resource, code: 'already_exists' }]);
      }
    }
  }

  private authenticate(req: IncomingMessage, match: RouteMatch): Authenticated {
    const header = req.headers.authorization;
    if (!header) return { error: new ApiError(401, 'Requires authentication') };
    const [scheme = '', token = ''] = header.trim().split(/\s+/, 2);
    if (!/^(token|bearer)$/i.test(scheme) || token === '') {
      return { error: new ApiError(401, 'Bad credentials') };
    }
    const isJwt = token.split('.').length === 3;
    if (match.template.startsWith('/app/') || match.template === '/app') {
      if (!isJwt) {
        return {
          error: new ApiError(401, 'A JSON web token could not be decoded'),
        };
      }
      return this.verifyJwt(token);
    }
    if (isJwt) {
      // An app's JWT only opens /app endpoints; repositories need an installation token.
      return { error: new ApiError(401, 'Bad credentials') };
    }
    if (token.startsWith('ghs_')) {
      const known = this.state.installationTokens.get(token);
      if (!known || known.expiresAt <= Date.now()) {
        return { error: new ApiError(401, 'Bad credentials') };
      }
      return { actor: known.bot, app: undefined };
    }
    return { actor: this.state.user(this.options.login ?? 'cogitave-test'), app: undefined };
  }

  /** RS256 app JWT, checked the way GitHub documents (issuer, signature, iat/exp window). */
  private verifyJwt(token: string): Authenticated {
    const decodeError = { error: new ApiError(401, 'A JSON web token could not be decoded') };
    const [h = '', p = '', s = ''] = token.split('.');
    let header: { alg?: unknown };
    let payload: { iss?: unknown; iat?: unknown; exp?: unknown };
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
      payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as typeof payload;
    } catch {
      return decodeError;
    }
    if (header.alg !== 'RS256') return decodeError;
    const appId = String(payload.iss);
    let app: AppRecord | undefined = this.apps.get(appId);
    const registered = this.apps.get(appId);
    if (registered?.publicKey) {
      const valid = verify(
        'sha256',
        Buffer.from(`${h}.${p}`),
        registered.publicKey,
        Buffer.from(s, 'base64url'),
      );
      if (!valid) return decodeError;
    } else if (!registered && this.apps.size > 0) {
      return { error: new ApiError(401, 'Integration not found') };
    }
    app ??= {
      id: appId,
      slug: `cogitave-app-${appId}`,
      installations: undefined,
      permissions: DEFAULT_PERMISSIONS,
    };
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat !== 'number' || payload.iat > now + 60) {
      return {
        error: new ApiError(
          401,
          "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued.",
        ),
      };
    }
    if (typeof payload.exp !== 'number' || payload.exp <= now) {
      return {
        error: new ApiError(
          401,
          "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires.",
        ),
      };
    }
    if (payload.exp - payload.iat > 600 + 60) {
      return {
        error: new ApiError(401, "'Expiration time' claim ('exp') is too far in the future."),
      };
    }
    return { actor: this.state.user(`${app.slug}[bot]`, 'Bot'), app };
  }

  private violate(violation: Violation): void {
    this.violationList.push(violation);
  }

  private sendError(
    res: ServerResponse,
    where: { method: string; path: string; operationId?: string },
    error: ApiError,
    fault?: FaultKind,
    documentationUrl?: string,
  ): void {
    const body = {
      message: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
      documentation_url: documentationUrl ?? this.openapi.docsUrl(where.operationId),
      status: String(error.status),
    };
    this.send(
      res,
      where,
      { status: error.status, body, ...(error.headers ? { headers: error.headers } : {}) },
      fault,
    );
  }

  private send(
    res: ServerResponse,
    where: { method: string; path: string; operationId?: string },
    reply: Reply,
    fault?: FaultKind,
  ): void {
    this.rateLimitUsed += 1;
    if (
      this.options.validateResponses !== false &&
      where.operationId !== undefined &&
      reply.body !== undefined &&
      fault === undefined
    ) {
      const problems = this.openapi.checkResponse(where.operationId, reply.status, reply.body);
      if (problems.length > 0) {
        this.violate({
          ...where,
          kind: 'response',
          reason: `Response ${reply.status} does not match GitHub's schema: ${problems.slice(0, 5).join(' ')}`,
          status: reply.status,
        });
      }
    }
    const headers: Record<string, string> = {
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
      'x-github-request-id': requestId(),
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(Math.max(0, 5000 - this.rateLimitUsed)),
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600),
      'x-ratelimit-used': String(this.rateLimitUsed),
      'x-ratelimit-resource': 'core',
      ...reply.headers,
    };
    let payload: Buffer | undefined;
    if (reply.raw) {
      headers['content-type'] = reply.raw.contentType;
      payload = reply.raw.data;
    } else if (reply.body !== undefined) {
      headers['content-type'] = 'application/json; charset=utf-8';
      payload = Buffer.from(JSON.stringify(reply.body));
    }
    this.requestList.push({ ...where, status: reply.status, ...(fault ? { fault } : {}) });
    res.writeHead(reply.status, headers);
    res.end(payload);
  }
}

export const startGitHubDouble = (options?: GitHubDoubleOptions): Promise<GitHubDouble> =>
  GitHubDouble.start(options);
