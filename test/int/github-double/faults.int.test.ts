import type { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startGitHubDouble,
  type FaultKind,
  type GitHubDouble,
  type WriteEvent,
} from '../../support/github-double/index.js';
import {
  OWNER,
  REPO,
  failureOf,
  plainOctokit,
  resilientOctokit,
  settledStatus,
  type LimitsSeen,
} from './clients.js';

/** Each fault kind as a client sees it, through plain Octokit and through retry + throttling. */
describe('GitHub double: fault injection', () => {
  let github: GitHubDouble;
  let octokit: Octokit;
  const repo = { owner: OWNER, repo: REPO };
  const titles = (): string[] => github.listIssues(OWNER, REPO).map((issue) => issue.title);

  beforeAll(async () => {
    github = await startGitHubDouble();
    octokit = plainOctokit(github);
  });
  afterEach(() => {
    expect(github.violations).toEqual([]);
    github.reset();
  });
  afterAll(() => github.close());

  it('error-after-write + plugin-retry: the POST is repeated and GitHub holds two issues', async () => {
    github.createRepository(OWNER, REPO);
    github.faults.inject({ operation: 'issues/create', kind: 'error-after-write', status: 502 });
    const created = await resilientOctokit(github).rest.issues.create({ ...repo, title: 'Once?' });
    // The client saw one success; GitHub performed two creations. This is why the reactor
    // must look for its earlier write before retrying one.
    expect(created.data.number).toBe(2);
    expect(titles()).toEqual(['Once?', 'Once?']);
    expect(github.stats).toEqual({
      calls: { 'issues/create': 2 },
      writes: { 'issues/create': 2 },
      faults: { 'error-after-write': 1 },
    });
    expect(github.requests.map((r) => [r.status, r.fault])).toEqual([
      [502, 'error-after-write'],
      [201, undefined],
    ]);
  });

  it('error-before-write + plugin-retry: the retry is the only write', async () => {
    github.faults.inject({ operation: 'issues/create', kind: 'error-before-write', times: 2 });
    const created = await resilientOctokit(github).rest.issues.create({ ...repo, title: 'Once' });
    expect(created.data.number).toBe(1);
    expect(titles()).toEqual(['Once']);
    expect(github.requests.map((r) => r.status)).toEqual([500, 500, 201]);
    expect(github.stats.faults).toEqual({ 'error-before-write': 2 });
  });

  it('timeout: the socket is destroyed after the hold; with afterWrite the write happened', async () => {
    github.createRepository(OWNER, REPO);
    github.faults.inject({ operation: 'issues/create', kind: 'timeout', ms: 50 });
    const started = Date.now();
    // Octokit reports the dropped connection as a RequestError with status 500, which
    // plugin-retry retries like any 5xx, POSTs included.
    await expect(octokit.rest.issues.create({ ...repo, title: 'Lost' })).rejects.toMatchObject({
      status: 500,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(titles()).toEqual([]);

    github.faults.inject({
      operation: 'POST /repos/{owner}/{repo}/issues',
      kind: 'timeout',
      ms: 50,
      afterWrite: true,
    });
    await expect(octokit.rest.issues.create({ ...repo, title: 'Ghost' })).rejects.toThrow();
    expect(titles()).toEqual(['Ghost']);

    // plugin-retry retries the dropped POST like any 5xx: the client succeeds, GitHub has two.
    github.faults.inject({ operation: 'issues/create', kind: 'timeout', ms: 20, afterWrite: true });
    await resilientOctokit(github).rest.issues.create({ ...repo, title: 'Twin' });
    expect(titles()).toEqual(['Ghost', 'Twin', 'Twin']);
    expect(github.requests.map((r) => r.status)).toEqual(['timeout', 'timeout', 'timeout', 201]);
  });

  it('secondary-rate-limit: 403 with retry-after; the throttling plugin waits and retries', async () => {
    github.faults.inject({ operation: 'issues/create', kind: 'secondary-rate-limit' });
    const error = await failureOf(octokit.rest.issues.create({ ...repo, title: 'T' }));
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/You have exceeded a secondary rate limit/);
    expect(error.response.headers['retry-after']).toBe('1');

    const seen: LimitsSeen = { secondary: [], primary: [] };
    github.faults.inject({
      operation: 'issues/create',
      kind: 'secondary-rate-limit',
      retryAfter: 2,
    });
    const created = await resilientOctokit(github, seen).rest.issues.create({
      ...repo,
      title: 'T',
    });
    expect(created.status).toBe(201);
    expect(seen.secondary).toEqual([2]);
    expect(titles()).toEqual(['T']);
  });

  it('rate-limit-429: 429 with retry-after, retried by the client', async () => {
    github.faults.inject({
      operation: 'issues/list-for-repo',
      kind: 'rate-limit-429',
      retryAfter: 3,
    });
    const error = await failureOf(octokit.rest.issues.listForRepo(repo));
    expect(error.status).toBe(429);
    expect(error.response.headers['retry-after']).toBe('3');

    // With both plugins, plugin-retry (the inner one) retries a 429 on its own backoff before
    // the throttling plugin, which would honour retry-after, ever sees it.
    const seen: LimitsSeen = { secondary: [], primary: [] };
    github.faults.inject({ operation: 'issues/list-for-repo', kind: 'rate-limit-429' });
    const listed = await resilientOctokit(github, seen).rest.issues.listForRepo(repo);
    expect(listed.status).toBe(200);
    expect(seen.secondary).toEqual([]);
    expect(github.requests.map((r) => r.status)).toEqual([429, 429, 200]);
  });

  it('primary-rate-limit: 403 with x-ratelimit-remaining 0 and a reset time', async () => {
    const seen: LimitsSeen = { secondary: [], primary: [] };
    github.faults.inject({ operation: 'repos/get', kind: 'primary-rate-limit', retryAfter: 1 });
    const fetched = await resilientOctokit(github, seen).rest.repos.get(repo);
    expect(fetched.status).toBe(200);
    expect(seen.primary).toHaveLength(1);
    expect(github.requests.map((r) => r.status)).toEqual([403, 200]);
  });

  it('already-exists: the 422 GitHub gives for the resource, and nothing is written', async () => {
    github.faults.inject({ operation: 'git/create-ref', kind: 'already-exists' });
    github.faults.inject({ operation: 'pulls/create', kind: 'already-exists' });
    github.faults.inject({ operation: 'issues/create-label', kind: 'already-exists' });
    const sha = (await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await expect(
      octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/x', sha }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { message: 'Reference already exists' } },
    });
    await expect(
      octokit.rest.pulls.create({ ...repo, title: 'P', head: 'x', base: 'main' }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: { errors: [{ message: `A pull request already exists for ${OWNER}:x.` }] },
      },
    });
    await expect(octokit.rest.issues.createLabel({ ...repo, name: 'l' })).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ code: 'already_exists' }] } },
    });
    expect(github.listRefs(OWNER, REPO).map((r) => r.ref)).toEqual(['refs/heads/main']);
    expect(github.stats.writes).toEqual({});
    expect(github.stats.faults).toEqual({ 'already-exists': 3 });
  });

  it('selects calls by template or glob, lets `skip` calls through, and stops after `times`', async () => {
    const rule = github.faults.inject({
      operation: 'GET /repos/acme/*/issues/**',
      kind: 'error-before-write',
      skip: 1,
      times: 2,
    });
    await octokit.rest.issues.create({ ...repo, title: 'A' });
    const get = () => settledStatus(octokit.rest.issues.get({ ...repo, issue_number: 1 }));
    expect([await get(), await get(), await get(), await get()]).toEqual([200, 500, 500, 200]);
    expect([rule.fired, rule.remaining]).toEqual([2, 0]);
  });

  it('random faults are reproducible for a seed', async () => {
    const kinds: FaultKind[] = ['error-before-write', 'secondary-rate-limit', 'already-exists'];
    const run = async (seed: number): Promise<(string | undefined)[]> => {
      github.reset();
      github.createRepository(OWNER, REPO);
      github.faults.random({ probability: 0.5, kinds, seed });
      for (let i = 0; i < 12; i += 1) {
        await octokit.rest.issues.create({ ...repo, title: `#${i}` }).catch(() => undefined);
        await octokit.rest.issues.listForRepo(repo).catch(() => undefined);
      }
      return github.requests.map((r) => r.fault);
    };
    const first = await run(42);
    expect(await run(42)).toEqual(first);
    expect(first.filter((f) => f !== undefined).length).toBeGreaterThan(4);
    expect(first.filter((f) => f === undefined).length).toBeGreaterThan(4);
    // `already-exists` never hits a read.
    expect(github.requests.some((r) => r.method === 'GET' && r.fault === 'already-exists')).toBe(
      false,
    );
    expect(await run(7)).not.toEqual(first);
  });

  it('onWrite runs after the write and before the client has its answer', async () => {
    github.createRepository(OWNER, REPO);
    let answered = false;
    const seen: { event: WriteEvent; issuesThen: number; answeredThen: boolean }[] = [];
    github.onWrite(async (event) => {
      // A crash test would kill its process here: GitHub has the issue, the client never hears.
      seen.push({
        event,
        issuesThen: github.listIssues(OWNER, REPO).length,
        answeredThen: answered,
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    const created = await octokit.rest.issues.create({ ...repo, title: 'W' });
    answered = true;
    expect(seen).toEqual([
      {
        event: {
          operation: 'issues/create',
          method: 'POST',
          path: `/repos/${OWNER}/${REPO}/issues`,
          repository: `${OWNER}/${REPO}`,
          status: 201,
          resource: created.data,
        },
        issuesThen: 1,
        answeredThen: false,
      },
    ]);
    await octokit.rest.issues.get({ ...repo, issue_number: 1 });
    expect(seen).toHaveLength(1);
  });
});
