import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Webhooks } from '@octokit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpServer } from '../../../mcp-gateway/http/server.js';
import { createGitHubOperations } from '../../../services/github/operations.js';
import {
  renderProposalPullBody,
  renderRequestFile,
  foldRequestStream,
} from '../../../services/github/render.js';
import { findProposal } from '../../../services/requests/fold.js';
import {
  DELIVERY_EVENT_TYPE,
  WEBHOOK_PATH,
  deliveryStreamId,
} from '../../../services/github/webhooks.js';
import {
  OWNER,
  REPO,
  REPOSITORY,
  eventTypes,
  proposeAcceptance,
  proposeIntake,
  reactorCaughtUp,
  requestEvents,
  silentLogger,
  type Harness,
} from './harness.js';
import {
  example,
  openWebhookWorld,
  signer,
  type Json,
  type WebhookWorld,
} from './webhook-world.js';

let world: WebhookWorld;
let h: Harness;
let server: RunningHttpServer;
let deliver: WebhookWorld['deliver'];
let head: WebhookWorld['head'];
let repositoryJson: WebhookWorld['repositoryJson'];
let issueClosedPayload: WebhookWorld['issueClosedPayload'];
let proposalWithPull: WebhookWorld['proposalWithPull'];
const pullClosedPayload = (number: number, sender: string): Json =>
  world.pullPayload(number, sender);

beforeAll(async () => {
  world = await openWebhookWorld('github_webhooks');
  ({ h, server, deliver, head, repositoryJson, issueClosedPayload, proposalWithPull } = world);
});

afterAll(async () => {
  await world.close();
});

/**
 * A POST whose declared length may exceed what is sent: the answer must arrive although the
 * body never does (the server decides on the headers).
 */
const rawPost = (
  url: string,
  init: { headers: Record<string, string>; body: string },
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const target = new URL(`${url}${WEBHOOK_PATH}`);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: init.headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: text });
        });
      },
    );
    req.on('error', reject);
    req.write(init.body);
  });

describe('GitHub webhooks', () => {
  it('given a proposal pull request merged by a maintainer, when pull_request.closed arrives, then the proposal is approved and the request advanced', async () => {
    const { requestId, proposalId, pull } = await proposalWithPull(1);
    const merged = h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const id = randomUUID();

    const answer = await deliver('pull_request', pullClosedPayload(pull, 'grace'), { id });

    expect(answer).toEqual({
      status: 200,
      body: { status: 'applied', command: 'approveProposal', requestId, proposalId },
    });
    const events = await requestEvents(h, requestId);
    expect(events.slice(-2).map((e) => [e.type, e.data])).toEqual([
      [
        'StageAdvanceApproved',
        {
          requestId,
          proposalId,
          approvedBy: 'grace',
          via: 'github',
          mergeCommitSha: merged.merge_commit_sha,
        },
      ],
      ['StageAdvanced', { requestId, proposalId, fromStage: 'proposed', toStage: 'accepted' }],
    ]);
    const [record] = await h.eventStore.readStream(deliveryStreamId(id));
    expect(record).toMatchObject({
      type: DELIVERY_EVENT_TYPE,
      data: { deliveryId: id, requestId, proposalId },
    });
    expect(h.double.violations).toEqual([]);
  });

  it('given a merged proposal, when the next stage is proposed, then its branch starts from the merged base and updates the request file with the approved history', async () => {
    const { requestId, issue } = await proposalWithPull(10);
    const first = h.double
      .listPullRequests(OWNER, REPO)
      .find((p) => p.head.ref === `cogitave/${requestId}-p1`)!;
    h.double.mergePullRequest(OWNER, REPO, first.number, { mergedBy: 'grace' });
    expect(
      (await deliver('pull_request', pullClosedPayload(first.number, 'grace'))).body.status,
    ).toBe('applied');
    expect(h.double.listFiles(OWNER, REPO)[`requests/${requestId}.md`]).toContain(
      'stage: accepted',
    );

    const { proposalId } = await h.handlers.proposeStageAdvance(
      {
        requestId,
        toStage: 'specified',
        evidence: { specLink: 'https://example.org/adr/7' },
        rationale: 'ADR 7 specifies the export format.',
      },
      { commandId: randomUUID(), actor: 'agent:alpha', at: new Date().toISOString() },
    );
    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();

    const file = h.double.listFiles(OWNER, REPO, `cogitave/${proposalId}`)[
      `requests/${requestId}.md`
    ]!;
    expect(file).toContain('stage: specified');
    expect(file).toContain('- **Specification / ADR:** <https://example.org/adr/7>');
    expect(file).toMatch(
      new RegExp(`\\| accepted \\| grace \\| github \\([0-9a-f]{12}\\) \\| ${requestId}-p1 \\|`),
    );
    const second = h.double
      .listPullRequests(OWNER, REPO)
      .find((p) => p.head.ref === `cogitave/${proposalId}`)!;
    expect(second).toMatchObject({
      draft: true,
      title: `[${requestId}] accepted → specified: Export the audit log as CSV, batch 10`,
    });
    expect(second.body).toContain(`Refs #${issue}`);
    expect(reactor.status().failures).toEqual([]);
    expect(h.double.violations).toEqual([]);
  });

  it('given a proposal pull request closed without merging, when pull_request.closed arrives, then the proposal is rejected', async () => {
    const { requestId, proposalId, pull } = await proposalWithPull(2);
    h.double.closePullRequest(OWNER, REPO, pull, { closedBy: 'grace' });

    const answer = await deliver('pull_request', pullClosedPayload(pull, 'grace'));

    expect(answer.body).toMatchObject({ status: 'applied', command: 'rejectProposal', proposalId });
    const [last] = (await requestEvents(h, requestId)).slice(-1);
    expect(last).toMatchObject({
      type: 'StageAdvanceRejected',
      data: { requestId, proposalId, rejectedBy: 'grace', via: 'github' },
    });
    expect(foldRequestStream(await requestEvents(h, requestId))?.stage).toBe('proposed');
  });

  it('given an intake issue closed as not planned, when issues.closed arrives, then the intake is rejected', async () => {
    const requestId = await proposeIntake(h.handlers, 3);
    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();
    const issue = (await requestEvents(h, requestId)).find((e) => e.type === 'IntakeIssueOpened')!
      .data as { issueNumber: number };
    h.double.closeIssue(OWNER, REPO, issue.issueNumber, {
      stateReason: 'not_planned',
      closedBy: 'grace',
    });

    const answer = await deliver('issues', issueClosedPayload(issue.issueNumber, 'grace'));

    expect(answer.body).toEqual({ status: 'applied', command: 'rejectIntake', requestId });
    expect((await requestEvents(h, requestId)).at(-1)).toMatchObject({
      type: 'IntakeRejected',
      data: { requestId, rejectedBy: 'grace', via: 'github' },
    });
  });

  it('given irrelevant or unrelated deliveries, when they arrive, then each answers 2xx and nothing is appended or recorded', async () => {
    const { pull, issue } = await proposalWithPull(4);
    h.double.closeIssue(OWNER, REPO, issue, { stateReason: 'completed' });
    const before = await head();

    const star = { ...example('star', 'created'), repository: repositoryJson() };
    const opened = { ...example('pull_request', 'opened'), repository: repositoryJson() };
    const foreign = example('pull_request', 'closed'); // Codertocat/Hello-World, branch "changes"
    const ourRepoOtherBranch = {
      ...example('pull_request', 'closed'),
      repository: repositoryJson(),
    };
    const completed = issueClosedPayload(issue, 'grace');
    const answers = [
      await deliver('star', star),
      await deliver('pull_request', opened),
      await deliver('pull_request', foreign),
      await deliver('pull_request', ourRepoOtherBranch),
      await deliver('issues', completed),
      await deliver('ping', { zen: 'Keep it logically awesome.', hook_id: 1 }),
    ];

    expect(answers.map((a) => [a.status, a.body.status])).toEqual([
      [200, 'ignored'],
      [200, 'ignored'],
      [200, 'ignored'],
      [200, 'ignored'],
      [200, 'ignored'],
      [200, 'pong'],
    ]);
    expect(answers.map((a) => a.body.reason).slice(2, 5)).toEqual([
      'repository Codertocat/Hello-World is not acme/widgets',
      'branch changes is not a proposal branch',
      `issue #${issue} closed as completed, not as not planned`,
    ]);
    expect(await head()).toBe(before);
    expect(pull).toBeGreaterThan(0);
  });

  it('given a forged or missing signature, when a merge delivery arrives, then it answers 401 and appends nothing', async () => {
    const { pull, requestId } = await proposalWithPull(5);
    h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const payload = pullClosedPayload(pull, 'grace');
    const before = await head();

    const forged = await deliver('pull_request', payload, {
      signature: await new Webhooks({ secret: 'not-the-secret' }).sign(JSON.stringify(payload)),
    });
    const missing = await deliver('pull_request', payload, { signature: null });
    const garbage = await deliver('pull_request', payload, { signature: 'sha256=zz' });
    // Signed, then altered in transit: the signature covers the raw bytes.
    const body = JSON.stringify(payload);
    const tampered = await fetch(`${server.url}${WEBHOOK_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': await signer.sign(body),
      },
      body: body.replace('"grace"', '"mallory"'),
    });

    expect([forged.status, missing.status, garbage.status, tampered.status]).toEqual([
      401, 401, 401, 401,
    ]);
    expect(forged.body).toMatchObject({ title: 'Unauthorized' });
    expect(await head()).toBe(before);
    expect(await eventTypes(h, requestId)).not.toContain('StageAdvanceApproved');
  });

  it('given a delivery applied once, when GitHub redelivers it (same X-GitHub-Delivery), then it answers "already applied" and appends nothing', async () => {
    const { pull, requestId, proposalId } = await proposalWithPull(6);
    h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const payload = pullClosedPayload(pull, 'grace');
    const id = randomUUID();

    const first = await deliver('pull_request', payload, { id });
    const after = await head();
    const second = await deliver('pull_request', payload, { id });
    const third = await deliver('pull_request', payload, { id });

    expect(first.body.status).toBe('applied');
    expect([second.body, third.body]).toEqual([
      { status: 'already applied', command: 'approveProposal', requestId, proposalId },
      { status: 'already applied', command: 'approveProposal', requestId, proposalId },
    ]);
    expect(await head()).toBe(after);
    expect((await eventTypes(h, requestId)).filter((t) => t === 'StageAdvanced')).toHaveLength(1);
  });

  it('given the same merge delivered concurrently under one id, when both race, then it is applied once', async () => {
    const { pull, requestId } = await proposalWithPull(7);
    h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const payload = pullClosedPayload(pull, 'grace');
    const id = randomUUID();

    const answers = await Promise.all(
      [1, 2, 3].map(() => deliver('pull_request', payload, { id })),
    );

    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(
      (await eventTypes(h, requestId)).filter((t) => t === 'StageAdvanceApproved'),
    ).toHaveLength(1);
    expect(await h.eventStore.readStream(deliveryStreamId(id))).toHaveLength(1);
  });

  it('given a merge that arrives before the reactor recorded its pull request, when delivered, then the proposal resolves by branch name, and the reactor later records nothing twice', async () => {
    const requestId = await proposeIntake(h.handlers, 8);
    const proposalId = await proposeAcceptance(h.handlers, requestId);
    // The reactor's GitHub step ran (pull request open) but it has not recorded anything yet.
    const operations = createGitHubOperations({
      client: h.client(),
      repository: REPOSITORY,
      logger: silentLogger,
    });
    const events = await requestEvents(h, requestId);
    const view = foldRequestStream(events)!;
    const proposal = findProposal(view, proposalId)!;
    // The file the reactor writes: after the merge the base branch agrees with the log.
    const then = foldRequestStream(events, BigInt(proposal.revision))!;
    const pull = await operations.ensureProposalPullRequest({
      branch: `cogitave/${proposalId}`,
      path: `requests/${requestId}.md`,
      content: renderRequestFile(then, proposal),
      commitMessage: 'propose',
      title: `[${requestId}] proposed → accepted`,
      body: renderProposalPullBody(view, proposal, undefined),
    });
    h.double.mergePullRequest(OWNER, REPO, pull.number, { mergedBy: 'grace' });

    const answer = await deliver('pull_request', pullClosedPayload(pull.number, 'grace'));

    expect(answer.body).toMatchObject({
      status: 'applied',
      command: 'approveProposal',
      proposalId,
    });
    expect(await eventTypes(h, requestId)).toEqual([
      'RequestProposed',
      'StageAdvanceProposed',
      'StageAdvanceApproved',
      'StageAdvanced',
    ]);

    const pullsBefore = h.double.listPullRequests(OWNER, REPO).length;
    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();
    expect(h.double.listPullRequests(OWNER, REPO)).toHaveLength(pullsBefore);
    expect(reactor.status().failures).toEqual([]);
    expect(foldRequestStream(await requestEvents(h, requestId))?.stage).toBe('accepted');
    expect(h.double.violations).toEqual([]);
  });

  it('given a request that is not a signed JSON POST, when it arrives, then it is refused before anything is read', async () => {
    const get = await fetch(`${server.url}${WEBHOOK_PATH}`);
    const form = await fetch(`${server.url}${WEBHOOK_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payload=%7B%7D',
    });

    expect([get.status, get.headers.get('allow'), form.status]).toEqual([
      405,
      'POST, OPTIONS',
      415,
    ]);
    expect(h.double.violations).toEqual([]);
  });

  it('given an unsigned delivery announcing a huge body, when it arrives, then 401 before any of the body is read', async () => {
    const answer = await rawPost(server.url, {
      headers: { 'content-type': 'application/json', 'content-length': String(20_000_000) },
      body: '{"zen":"',
    });

    expect(answer.status).toBe(401);
    expect(answer.body).toContain('X-Hub-Signature-256 is missing');
  });

  it("given a signed delivery over GitHub's 25 MB, when it arrives, then a readable 413 problem and nothing appended", async () => {
    const before = await head();
    const answer = await rawPost(server.url, {
      headers: {
        'content-type': 'application/json',
        'content-length': String(26 * 1024 * 1024),
        'x-hub-signature-256': 'sha256=00',
        'x-github-event': 'ping',
        'x-github-delivery': randomUUID(),
      },
      body: '{"zen":"',
    });

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 413, title: 'Content Too Large' });
    expect(await head()).toBe(before);
  });
});
