import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../../services/github/checkpoint.js';
import { markerIn } from '../../../services/github/markers.js';
import type {
  IntakeIssueOpened,
  ProposalPullRequestOpened,
} from '../../../services/requests/events.js';
import {
  OWNER,
  REPO,
  REPOSITORY,
  eventTypes,
  meta,
  openHarness,
  proposeAcceptance,
  proposeIntake,
  reactorCaughtUp,
  requestEvents,
  type Harness,
} from './harness.js';

/**
 * The reactor against the GitHub double: real Octokit over HTTP, real Postgres, the real
 * request command handlers.
 */
let h: Harness;

beforeAll(async () => {
  h = await openHarness('github_reactor');
});

afterAll(async () => {
  await h.close();
});

describe('GitHub reactor', () => {
  let requestId: string;
  let proposalId: string;
  let issueNumber: number;

  it('given an intake, when the reactor runs, then exactly one issue with marker and labels is opened and recorded', async () => {
    requestId = await proposeIntake(h.handlers, 1);
    const client = h.client();
    expect(client.stats.rateLimitRemaining).toBeUndefined();
    const reactor = h.reactor(client);
    reactor.start();
    await reactorCaughtUp(h, reactor);
    // The quota GitHub reported on its newest answer, as /metrics shows it.
    expect(client.stats.rateLimitRemaining).toBeGreaterThan(0);
    expect(client.stats.rateLimitRemaining).toBeLessThan(5000);

    const issues = h.double.listIssues(OWNER, REPO);
    expect(issues).toHaveLength(1);
    const [issue] = issues;
    issueNumber = issue!.number;
    expect(markerIn(issue!.body, 'request')).toBe(requestId);
    expect(issue!.title).toBe(`[${requestId}] Export the audit log as CSV, batch 1`);
    expect(
      issue!.labels.map((label) => (typeof label === 'string' ? label : label.name)).sort(),
    ).toEqual(['cogitave', 'cogitave:intake', `cogitave:${requestId}`].sort());
    const recorded = (await requestEvents(h, requestId)).find(
      (e) => e.type === 'IntakeIssueOpened',
    );
    expect(recorded?.data).toEqual<IntakeIssueOpened['data']>({
      requestId,
      repository: REPOSITORY,
      issueNumber,
      issueUrl: issue!.html_url,
    });
    expect(reactor.status()).toMatchObject({ state: 'live', failures: [] });
    await reactor.stop();
    expect(h.double.violations).toEqual([]);
  });

  it('given a stage proposal, when the reactor runs, then a branch, the request file and a draft pull request referencing the issue exist and are recorded', async () => {
    proposalId = await proposeAcceptance(h.handlers, requestId);
    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);

    const branch = `cogitave/${proposalId}`;
    expect(h.double.listRefs(OWNER, REPO).map((ref) => ref.ref)).toContain(`refs/heads/${branch}`);
    const file = h.double.listFiles(OWNER, REPO, branch)[`requests/${requestId}.md`];
    expect(file).toBeDefined();
    expect(file).toContain(`id: ${requestId}`);
    expect(file).toContain('stage: accepted');
    expect(file).toContain(`proposal: ${proposalId}`);
    expect(file).toContain(`intake_issue: ${issueNumber}`);
    expect(file).toContain(
      '| ac-1 | The export contains every audit event of the chosen month | agreed with the audit team _(this proposal)_ |',
    );
    expect(h.double.listFiles(OWNER, REPO)[`requests/${requestId}.md`]).toBeUndefined();

    const pulls = h.double.listPullRequests(OWNER, REPO);
    expect(pulls).toHaveLength(1);
    const [pull] = pulls;
    expect(pull).toMatchObject({
      draft: true,
      state: 'open',
      head: { ref: branch },
      base: { ref: 'main' },
    });
    expect(pull!.body).toContain(`Refs #${issueNumber}`);
    expect(markerIn(pull!.body, 'proposal')).toBe(proposalId);

    const recorded = (await requestEvents(h, requestId)).find(
      (e) => e.type === 'ProposalPullRequestOpened',
    );
    expect(recorded?.data).toEqual<ProposalPullRequestOpened['data']>({
      requestId,
      proposalId,
      repository: REPOSITORY,
      branch,
      pullNumber: pull!.number,
      pullUrl: pull!.html_url,
      // The reactor's own commit, so a push by anyone else onto the branch is told apart.
      headSha: h.double.listRefs(OWNER, REPO).find((ref) => ref.ref === `refs/heads/${branch}`)
        ?.sha,
    });
    await reactor.stop();
    expect(h.double.violations).toEqual([]);
  });

  it('given a stopped reactor, when a new one restarts from the checkpoint, then it makes no GitHub call and appends nothing', async () => {
    const before = await eventTypes(h, requestId);
    const calls = h.double.requests.length;
    const checkpoint = await loadCheckpoint(h.database.pool, 'github-reactor');
    expect(checkpoint).toBeDefined();

    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await reactor.stop();

    expect(h.double.requests.length).toBe(calls);
    expect(await eventTypes(h, requestId)).toEqual(before);
    expect(h.double.listIssues(OWNER, REPO)).toHaveLength(1);
    expect(h.double.listPullRequests(OWNER, REPO)).toHaveLength(1);
    expect(h.double.violations).toEqual([]);
  });

  it('given the checkpoint is lost, when the reactor replays the log, then it finds what exists and creates nothing twice', async () => {
    await h.database.pool.query('DELETE FROM github_reactor.checkpoints');
    const writes = { ...h.double.stats.writes };

    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();

    expect(h.double.stats.writes).toEqual(writes);
    expect(h.double.listIssues(OWNER, REPO)).toHaveLength(1);
    expect(h.double.listPullRequests(OWNER, REPO)).toHaveLength(1);
    expect(
      (await eventTypes(h, requestId)).filter((type) => type === 'IntakeIssueOpened'),
    ).toHaveLength(1);
    expect(h.double.violations).toEqual([]);
  });

  it('given GitHub objects that exist but were never recorded (a crash after the writes), when the reactor runs, then it records them without creating twins', async () => {
    const second = await proposeIntake(h.handlers, 2);
    const secondProposal = await proposeAcceptance(h.handlers, second);
    // A first reactor does the GitHub work, but every record command fails (as if it died).
    const failing = h.reactor(h.client(), {
      handlers: {
        ...h.handlers,
        recordIntakeIssue: () =>
          Promise.reject(Object.assign(new Error('crashed'), { status: 503 })),
        recordProposalPullRequest: () =>
          Promise.reject(Object.assign(new Error('crashed'), { status: 503 })),
      },
      name: 'github-reactor-doomed',
    });
    failing.start();
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (failing.status().retrying) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
      setTimeout(() => {
        clearInterval(timer);
        reject(new Error('the doomed reactor never retried'));
      }, 10_000);
    });
    await failing.stop();
    expect(h.double.listIssues(OWNER, REPO)).toHaveLength(2);

    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();

    expect(h.double.listIssues(OWNER, REPO)).toHaveLength(2);
    expect(h.double.listPullRequests(OWNER, REPO)).toHaveLength(2);
    expect(await eventTypes(h, second)).toEqual([
      'RequestProposed',
      'StageAdvanceProposed',
      'IntakeIssueOpened',
      'ProposalPullRequestOpened',
    ]);
    expect(secondProposal).toBe(`${second}-p1`);
    expect(h.double.violations).toEqual([]);
  });

  it('given a request withdrawn before the reactor reached it, when the reactor runs, then no issue is opened and nothing counts as failed', async () => {
    const withdrawn = await proposeIntake(h.handlers, 3);
    await h.handlers.withdraw(
      { requestId: withdrawn, reason: 'duplicate of another request' },
      meta('agent:alpha'),
    );
    const issues = h.double.listIssues(OWNER, REPO).length;

    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();

    expect(h.double.listIssues(OWNER, REPO)).toHaveLength(issues);
    expect(reactor.status().failures).toEqual([]);
    expect(await eventTypes(h, withdrawn)).toEqual(['RequestProposed', 'RequestWithdrawn']);
    expect(h.double.violations).toEqual([]);
  });
});
