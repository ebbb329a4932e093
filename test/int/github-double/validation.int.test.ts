import { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  loadOpenApi,
  startGitHubDouble,
  type GitHubDouble,
} from '../../support/github-double/index.js';
import { OWNER, REPO, failureOf, plainOctokit, quiet, statusOf } from './clients.js';

/**
 * Every request is checked against GitHub's OpenAPI description; what GitHub would refuse (or
 * silently misread) is refused and recorded, so tests of the product can demand
 * `expect(github.violations).toEqual([])`.
 */
describe('GitHub double: request validation', () => {
  let github: GitHubDouble;
  let octokit: Octokit;
  const repo = { owner: OWNER, repo: REPO };

  beforeAll(async () => {
    github = await startGitHubDouble();
    octokit = plainOctokit(github);
  });
  afterEach(() => {
    github.reset();
  });
  afterAll(() => github.close());

  it('refuses issues.create without a title, and creates nothing', async () => {
    github.createRepository(OWNER, REPO);
    const error = await failureOf(
      octokit.request('POST /repos/acme/widgets/issues', { body: 'no title' }),
    );
    expect(error.status).toBe(422);
    expect(error.response.data.message).toBe('Invalid request.\n\n"title" wasn\'t supplied.');
    expect(github.violations).toEqual([
      {
        method: 'POST',
        path: '/repos/acme/widgets/issues',
        operationId: 'issues/create',
        kind: 'body',
        reason: 'Invalid request.\n\n"title" wasn\'t supplied.',
        status: 422,
      },
    ]);
    expect(github.listIssues(OWNER, REPO)).toEqual([]);
    expect(github.stats.writes['issues/create']).toBeUndefined();
  });

  it('refuses a value outside a query enum and a mistyped body field', async () => {
    const state = 'bogus' as 'open';
    expect(await statusOf(octokit.rest.issues.listForRepo({ ...repo, state }))).toBe(422);
    const draft = 'yes' as unknown as boolean;
    expect(
      await statusOf(octokit.rest.pulls.create({ ...repo, head: 'a', base: 'main', draft })),
    ).toBe(422);
    expect(github.violations.map((v) => [v.kind, v.operationId, v.reason])).toEqual([
      [
        'query',
        'issues/list-for-repo',
        'For parameter /state: must be one of ["open","closed","all"].',
      ],
      ['body', 'pulls/create', 'Invalid request.\n\nFor body /draft: must be boolean.'],
    ]);
  });

  it('refuses parameters the operation does not declare, which GitHub would ignore', async () => {
    // A typo of `labels`: GitHub creates the issue without labels and says nothing.
    const typo = { label: ['stage:draft'] } as Record<string, unknown>;
    expect(await statusOf(octokit.rest.issues.create({ ...repo, title: 'T', ...typo }))).toBe(422);
    expect(
      await statusOf(octokit.request('GET /repos/{owner}/{repo}/issues', { ...repo, label: 'x' })),
    ).toBe(422);
    expect(github.violations.map((v) => [v.kind, v.reason])).toEqual([
      ['body', 'Invalid request.\n\n"label" is not a property of issues/create\'s body.'],
      ['query', 'Unknown query parameter "label" for issues/list-for-repo.'],
    ]);
  });

  it('answers 404 for a path no operation has, or a mistyped path parameter', async () => {
    expect(await statusOf(octokit.request('GET /repos/acme/widgets/nonsense'))).toBe(404);
    expect(await statusOf(octokit.request('GET /repos/acme/widgets/issues/abc'))).toBe(404);
    expect(await statusOf(octokit.request('DELETE /repos/acme/widgets/issues/1'))).toBe(404);
    expect(github.violations.map((v) => [v.kind, v.path, v.status])).toEqual([
      ['route', '/repos/acme/widgets/nonsense', 404],
      ['path', '/repos/acme/widgets/issues/abc', 404],
      ['route', '/repos/acme/widgets/issues/1', 404],
    ]);
  });

  it('answers 401 without credentials and 400 for a body that is not JSON', async () => {
    const anonymous = new Octokit({ baseUrl: github.url, log: quiet });
    await expect(anonymous.rest.repos.get(repo)).rejects.toMatchObject({
      status: 401,
      response: { data: { message: 'Requires authentication' } },
    });
    const broken = octokit.request('POST /repos/acme/widgets/issues', {
      headers: { 'content-type': 'application/json' },
      data: '{"title": ',
    });
    expect(await statusOf(broken)).toBe(400);
    expect(github.violations.map((v) => [v.kind, v.status])).toEqual([
      ['auth', 401],
      ['body', 400],
    ]);
  });

  it('marks documented operations the double does not serve as unimplemented', async () => {
    expect(await statusOf(octokit.rest.repos.listBranches(repo))).toBe(501);
    expect(github.violations).toEqual([
      expect.objectContaining({ kind: 'unimplemented', operationId: 'repos/list-branches' }),
    ]);
  });

  it("routes each of GitHub's documented operations to itself", async () => {
    const openapi = await loadOpenApi();
    const operations = openapi.operations();
    expect(operations.length).toBeGreaterThan(1000);
    const misrouted = operations.filter(
      ({ method, template, operationId }) =>
        openapi.match(method, template.replace(/\{[^}]+\}/g, 'x1'))?.operationId !== operationId,
    );
    expect(misrouted).toEqual([]);
  });

  it('passes well-formed requests, with path parameters percent-encoded by Octokit', async () => {
    await octokit.rest.issues.createLabel({ ...repo, name: 'stage: needs/review' });
    const label = await octokit.rest.issues.getLabel({ ...repo, name: 'stage: needs/review' });
    expect(label.data.name).toBe('stage: needs/review');
    await octokit.rest.repos.createOrUpdateFileContents({
      ...repo,
      path: 'docs/a b/ü.md',
      message: 'm',
      content: Buffer.from('x').toString('base64'),
    });
    const file = await octokit.rest.repos.getContent({ ...repo, path: 'docs/a b/ü.md' });
    expect(file.data).toMatchObject({ path: 'docs/a b/ü.md', name: 'ü.md' });
    const raw = await octokit.rest.repos.getContent({
      ...repo,
      path: 'docs/a b/ü.md',
      mediaType: { format: 'raw' },
    });
    expect(raw.data).toBe('x');
    expect(github.violations).toEqual([]);
  });
});
