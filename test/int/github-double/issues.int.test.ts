import type { Octokit } from '@octokit/rest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  loadOpenApi,
  startGitHubDouble,
  type GitHubDouble,
  type OpenApi,
} from '../../support/github-double/index.js';
import { OWNER, REPO, plainOctokit } from './clients.js';

/** Issues, labels and comments through real Octokit, against the double. */
describe('GitHub double: issues', () => {
  let github: GitHubDouble;
  let octokit: Octokit;
  let openapi: OpenApi;
  const repo = { owner: OWNER, repo: REPO };

  beforeAll(async () => {
    github = await startGitHubDouble();
    octokit = plainOctokit(github);
    openapi = await loadOpenApi();
  });
  afterEach(() => {
    github.reset();
  });
  afterAll(() => github.close());

  it('creates labelled issues and lists them page by page, ANDing the label filter', async () => {
    github.createRepository(OWNER, REPO);
    for (let i = 1; i <= 7; i += 1) {
      await octokit.rest.issues.create({
        ...repo,
        title: `Task ${i}`,
        labels: i % 2 === 1 ? ['cogitave', 'stage:draft'] : [{ name: 'cogitave' }],
      });
    }

    const first = await octokit.rest.issues.listForRepo({
      ...repo,
      labels: 'cogitave',
      state: 'all',
      per_page: 3,
    });
    expect(first.data.map((issue) => issue.number)).toEqual([7, 6, 5]);
    expect(first.headers.link).toMatch(/[?&]page=2[^>]*>; rel="next"/);
    expect(first.headers.link).toMatch(/[?&]page=3[^>]*>; rel="last"/);

    const all = await octokit.paginate(octokit.rest.issues.listForRepo, {
      ...repo,
      labels: 'cogitave',
      state: 'all',
      per_page: 3,
    });
    expect(all.map((issue) => issue.title)).toEqual([7, 6, 5, 4, 3, 2, 1].map((i) => `Task ${i}`));
    expect(github.stats.calls['issues/list-for-repo']).toBe(1 + 3);

    const both = await octokit.paginate(octokit.rest.issues.listForRepo, {
      ...repo,
      labels: 'cogitave,STAGE:DRAFT',
      direction: 'asc',
    });
    expect(both.map((issue) => issue.number)).toEqual([1, 3, 5, 7]);
    const none = await octokit.rest.issues.listForRepo({ ...repo, labels: 'cogitave,unknown' });
    expect(none.data).toEqual([]);
    expect(none.headers.link).toBeUndefined();

    expect(github.listLabels(OWNER, REPO).map((label) => label.name)).toEqual([
      'cogitave',
      'stage:draft',
    ]);
    expect(github.stats.writes['issues/create']).toBe(7);
    expect(github.violations).toEqual([]);
  });

  it('reads, updates, comments on, closes and reopens an issue as GitHub does', async () => {
    const created = await octokit.rest.issues.create({ ...repo, title: 'Draft', body: 'first' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${github.url}/repos/${OWNER}/${REPO}/issues/1`);
    expect(created.data).toMatchObject({
      number: 1,
      state: 'open',
      state_reason: null,
      title: 'Draft',
      body: 'first',
      user: { login: 'cogitave-test', type: 'User' },
      labels: [],
      comments: 0,
      closed_at: null,
      html_url: `https://github.com/${OWNER}/${REPO}/issues/1`,
    });

    await octokit.rest.issues.update({ ...repo, issue_number: 1, labels: ['stage:review'] });
    const comment = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: 'Moved to review',
    });
    expect(comment.data).toMatchObject({
      body: 'Moved to review',
      user: { login: 'cogitave-test' },
    });

    const closed = await octokit.rest.issues.update({
      ...repo,
      issue_number: 1,
      state: 'closed',
      state_reason: 'not_planned',
    });
    expect(closed.data).toMatchObject({
      state: 'closed',
      state_reason: 'not_planned',
      comments: 1,
      labels: [{ name: 'stage:review' }],
      closed_by: { login: 'cogitave-test' },
    });
    expect(closed.data.closed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect((await octokit.rest.issues.listForRepo(repo)).data).toEqual([]);

    const reopened = await octokit.rest.issues.update({ ...repo, issue_number: 1, state: 'open' });
    expect(reopened.data).toMatchObject({
      state: 'open',
      state_reason: 'reopened',
      closed_at: null,
    });
    expect(github.listComments(OWNER, REPO, 1).map((c) => c.body)).toEqual(['Moved to review']);
    expect(github.violations).toEqual([]);
  });

  it('answers 404 for what does not exist and 422 for a label that already exists', async () => {
    await expect(octokit.rest.issues.get({ ...repo, issue_number: 99 })).rejects.toMatchObject({
      status: 404,
      response: { data: { message: 'Not Found', status: '404' } },
    });
    await expect(
      octokit.rest.issues.getLabel({ ...repo, name: 'stage:draft' }),
    ).rejects.toMatchObject({ status: 404 });
    const label = await octokit.rest.issues.createLabel({
      ...repo,
      name: 'stage:draft',
      color: 'FFAA00',
      description: 'Being drafted',
    });
    expect(label.data).toMatchObject({ name: 'stage:draft', color: 'ffaa00', default: false });
    expect((await octokit.rest.issues.getLabel({ ...repo, name: 'STAGE:DRAFT' })).data.id).toBe(
      label.data.id,
    );
    await expect(
      octokit.rest.issues.createLabel({ ...repo, name: 'Stage:Draft' }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: 'Validation Failed',
          errors: [{ resource: 'Label', code: 'already_exists', field: 'name' }],
          documentation_url: 'https://docs.github.com/rest/issues/labels#create-a-label',
        },
      },
    });
    await expect(
      octokit.rest.issues.create({ ...repo, title: 'x', milestone: 3 }),
    ).rejects.toMatchObject({ status: 422 });
    // GitHub's refusals are answers, not contract violations.
    expect(github.violations).toEqual([]);
  });

  it('answers with bodies that validate against the OpenAPI response schemas', async () => {
    const repository = await octokit.rest.repos.get(repo);
    const issue = await octokit.rest.issues.create({ ...repo, title: 'Schema', labels: ['a'] });
    const fetched = await octokit.rest.issues.get({ ...repo, issue_number: issue.data.number });
    const listed = await octokit.rest.issues.listForRepo(repo);
    const comment = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 1,
      body: 'b',
    });
    const label = await octokit.rest.issues.getLabel({ ...repo, name: 'a' });
    const failure = await octokit.rest.issues
      .get({ ...repo, issue_number: 9 })
      .catch(
        (error: unknown) => (error as { response: { status: number; data: unknown } }).response,
      );
    const samples: [string, number, unknown][] = [
      ['repos/get', repository.status, repository.data],
      ['issues/create', issue.status, issue.data],
      ['issues/get', fetched.status, fetched.data],
      ['issues/list-for-repo', listed.status, listed.data],
      ['issues/create-comment', comment.status, comment.data],
      ['issues/get-label', label.status, label.data],
      ['issues/get', failure.status, failure.data],
    ];
    for (const [operation, status, body] of samples) {
      expect({ operation, errors: openapi.checkResponse(operation, status, body) }).toEqual({
        operation,
        errors: [],
      });
    }
    expect(repository.data).toMatchObject({
      default_branch: 'main',
      full_name: `${OWNER}/${REPO}`,
    });
    // The check has teeth: a wrong field type or a missing required field is caught.
    expect(openapi.checkResponse('issues/get', 200, { ...fetched.data, state: 42 })).not.toEqual(
      [],
    );
    const withoutNumber: Record<string, unknown> = { ...fetched.data };
    delete withoutNumber.number;
    expect(openapi.checkResponse('issues/get', 200, withoutNumber)).toContain(
      '"number" wasn\'t supplied.',
    );
    expect(github.violations).toEqual([]);
  });
});
