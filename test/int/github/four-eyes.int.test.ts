import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldRequestStream } from '../../../services/github/render.js';
import { findProposal } from '../../../services/requests/fold.js';
import {
  fileRestoreBranch,
  renderRecordedRequestFile,
} from '../../../services/github/reconcile.js';
import { deliveryStreamId } from '../../../services/github/webhooks.js';
import { ALL_GRANTS } from '../../../services/access/grants.js';
import {
  createGovernanceService,
  type GovernanceService,
} from '../../../services/governance/service.js';
import { isCogitaveError } from '../../../services/runtime/errors.js';
import { decide } from '../../../mcp-gateway/console/actions.js';
import type { ConsoleIdentity } from '../../../mcp-gateway/console/session.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';
import {
  OWNER,
  REPO,
  openHarness,
  proposeAcceptance,
  proposeIntake,
  requestEvents,
  type Harness,
} from './harness.js';
import {
  PRINCIPALS,
  openWebhookWorld,
  webhookWorldForFile,
  type WebhookWorld,
} from './webhook-world.js';

/**
 * Four eyes between people, through GitHub: real webhook payloads (signed, over HTTP) against
 * the GitHub double, with a principal table linking octocat's MCP token to octocat's login and
 * naming grace the only maintainer besides octocat.
 */

const shared = webhookWorldForFile('github_four_eyes', { principals: PRINCIPALS });
let world: WebhookWorld;
let h: Harness;

beforeAll(() => {
  world = shared.world();
  h = shared.h();
});

const runReactor = (): Promise<void> => world.runReactor();

describe('four eyes compares principals on GitHub', () => {
  it("given octocat's token proposed, when octocat merges its pull request, then the merge is recorded as not counting, the proposal ends, the PR gets a comment and a restore PR, and the agent can propose again", async () => {
    const { requestId, proposalId, pull } = await world.proposalWithPull(1, 'token:octocat-agent');
    const merged = h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'octocat' });
    const id = randomUUID();

    const answer = await world.deliver('pull_request', world.pullPayload(pull, 'octocat'), { id });

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'not counted',
      command: 'approveProposal',
      requestId,
      proposalId,
    });
    expect(String(answer.body.reason)).toContain('principal octocat');
    const events = await requestEvents(h, requestId);
    expect(events.map((e) => e.type)).not.toContain('StageAdvanceApproved');
    expect(events.at(-1)).toMatchObject({
      type: 'StageAdvanceRejected',
      metadata: { actor: 'github:octocat' },
      data: {
        requestId,
        proposalId,
        rejectedBy: 'octocat',
        via: 'github',
        mergeNotCounted: {
          pullNumber: pull,
          mergedBy: 'octocat',
          mergeCommitSha: merged.merge_commit_sha,
          rule: 'own_proposal',
          principal: 'octocat',
        },
      },
    });
    expect(await h.eventStore.readStream(deliveryStreamId(id))).toHaveLength(1);
    const view = foldRequestStream(events)!;
    expect([view.stage, findProposal(view, proposalId)?.outcome]).toEqual(['proposed', 'rejected']);

    // The merge put "stage: accepted" on the base branch; the reactor makes it agree again.
    expect(h.double.listFiles(OWNER, REPO)[`requests/${requestId}.md`]).toContain(
      'stage: accepted',
    );
    await runReactor();
    const comments = h.double.listComments(OWNER, REPO, pull).map((c) => c.body ?? '');
    expect(comments.some((body) => body.includes('does not count as an approval'))).toBe(true);
    // Named after the merge commit, as the merge's push names it: one restore either way.
    const branch = fileRestoreBranch(requestId, String(merged.merge_commit_sha));
    const restore = h.double.listPullRequests(OWNER, REPO).find((p) => p.head.ref === branch)!;
    expect(restore).toMatchObject({ state: 'open', draft: false });
    const restored = h.double.listFiles(OWNER, REPO, branch)[`requests/${requestId}.md`];
    expect(restored).toBe(renderRecordedRequestFile(events));
    expect(restored).toContain('stage: proposed');

    // Merging the restore pull request is not a decision: nothing is appended.
    h.double.mergePullRequest(OWNER, REPO, restore.number, { mergedBy: 'octocat' });
    const before = await world.head();
    const restoreAnswer = await world.deliver(
      'pull_request',
      world.pullPayload(restore.number, 'octocat'),
    );
    expect(restoreAnswer.body.status).toBe('ignored');
    expect(await world.head()).toBe(before);
    expect(h.double.listFiles(OWNER, REPO)[`requests/${requestId}.md`]).toBe(restored);

    // Never stuck: the agent proposes again, and another maintainer's merge counts.
    const again = await proposeAcceptance(h.handlers, requestId, 'token:octocat-agent');
    expect(again).toBe(`${requestId}-p2`);
    await runReactor();
    const second = h.double
      .listPullRequests(OWNER, REPO)
      .find((p) => p.head.ref === `cogitave/${again}`)!;
    h.double.mergePullRequest(OWNER, REPO, second.number, { mergedBy: 'grace-hopper' });
    const applied = await world.deliver(
      'pull_request',
      world.pullPayload(second.number, 'grace-hopper'),
    );
    expect(applied.body).toMatchObject({ status: 'applied', proposalId: again });
    expect(foldRequestStream(await requestEvents(h, requestId))?.stage).toBe('accepted');
    expect(h.double.violations).toEqual([]);
  });

  it('given maintainers are configured, when someone who is not one merges, then the merge does not count', async () => {
    const { requestId, proposalId, pull } = await world.proposalWithPull(2, 'token:octocat-agent');
    h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'intern-bot' });

    const answer = await world.deliver('pull_request', world.pullPayload(pull, 'intern-bot'));

    expect(answer.body).toMatchObject({ status: 'not counted', requestId, proposalId });
    expect((await requestEvents(h, requestId)).at(-1)?.data).toMatchObject({
      mergeNotCounted: { rule: 'not_maintainer', principal: 'intern', mergedBy: 'intern-bot' },
    });
  });

  it('given a login linked to the same principal as the proposing token, when that other login merges, then it does not count either', async () => {
    const { requestId, pull } = await world.proposalWithPull(3, 'github:grace');
    h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace-hopper' });

    const answer = await world.deliver('pull_request', world.pullPayload(pull, 'grace-hopper'));

    expect(answer.body).toMatchObject({ status: 'not counted', requestId });
    expect(String(answer.body.reason)).toContain('principal grace');
  });
});

describe('GitHub and the log disagreeing after a decision', () => {
  it('given a rejected proposal, when its pull request is reopened and then merged, then each is recorded, the reactor closes it again, and the merge is answered by a restore pull request', async () => {
    const { requestId, proposalId, pull } = await world.proposalWithPull(4, 'token:octocat-agent');
    h.double.closePullRequest(OWNER, REPO, pull, { closedBy: 'grace' });
    expect(
      (await world.deliver('pull_request', world.pullPayload(pull, 'grace'))).body,
    ).toMatchObject({ status: 'applied', command: 'rejectProposal' });

    h.double.reopenPullRequest(OWNER, REPO, pull, { by: 'grace' });
    const reopened = await world.deliver(
      'pull_request',
      world.pullPayload(pull, 'grace', 'reopened'),
    );
    expect(reopened.body).toMatchObject({ status: 'reopen recorded', requestId, proposalId });
    await runReactor();
    expect(h.double.getPullRequest(OWNER, REPO, pull).state).toBe('closed');
    expect(
      h.double
        .listComments(OWNER, REPO, pull)
        .some((c) => (c.body ?? '').includes('reopening revives nothing')),
    ).toBe(true);

    // Reopened once more and merged before anyone noticed: GitHub merged an ended proposal.
    h.double.reopenPullRequest(OWNER, REPO, pull, { by: 'grace' });
    const merge = h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const merged = await world.deliver('pull_request', world.pullPayload(pull, 'grace'));
    expect(merged.body).toMatchObject({ status: 'not counted', requestId, proposalId });
    expect(String(merged.body.reason)).toContain('after proposal');
    await runReactor();

    const events = await requestEvents(h, requestId);
    expect(events.map((e) => e.type)).not.toContain('StageAdvanceApproved');
    const divergences = await h.eventStore.readStream(`github-divergence-${requestId}`);
    expect(divergences.map((e) => (e.data as { kind: string }).kind)).toEqual([
      'reopened',
      'merged_after_decision',
    ]);
    const restored = h.double.listFiles(
      OWNER,
      REPO,
      fileRestoreBranch(requestId, String(merge.merge_commit_sha)),
    )[`requests/${requestId}.md`];
    expect(restored).toBe(renderRecordedRequestFile(events));
    expect(h.double.violations).toEqual([]);
  });
});

describe('four eyes without a principal table', () => {
  let plain: WebhookWorld;
  beforeAll(async () => {
    plain = await openWebhookWorld('github_four_eyes_plain');
  });
  afterAll(async () => {
    await plain.close();
  });

  it('given a token named like a GitHub login proposed, when that login merges, then the names are one principal and the merge does not count', async () => {
    const { requestId, pull } = await plain.proposalWithPull(1, 'token:octocat');
    plain.h.double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'octocat' });

    const answer = await plain.deliver('pull_request', plain.pullPayload(pull, 'octocat'));

    expect(answer.body).toMatchObject({ status: 'not counted', requestId });
    expect(await requestEvents(plain.h, requestId)).not.toContainEqual(
      expect.objectContaining({ type: 'StageAdvanceApproved' }),
    );
  });
});

describe('four eyes at the local doors: the approval CLI and the console', () => {
  /**
   * One person with three identities (two MCP tokens and a GitHub login) on a local-mode
   * deployment: whichever the agent proposed with, none of the others approves, through the
   * governance service the CLI calls or through the console's decision route.
   */
  const ADA = {
    ada: { tokens: ['ada-agent', 'ada-console'], github: ['ada-lovelace'], maintainer: true },
    grace: { github: ['grace'], maintainer: true },
  };
  let local: Harness;
  let governance: GovernanceService;
  beforeAll(async () => {
    local = await openHarness('github_four_eyes_local', { principals: ADA });
    governance = createGovernanceService({
      eventStore: local.eventStore,
      handlers: local.handlers,
      principals: local.governance.principals,
      configuredMode: 'local',
      repository: null,
    });
  });
  afterAll(async () => {
    await local.close();
  });

  /** The console's decision route as a login of `token` uses it (read and wait stubbed). */
  const decideInConsole = async (token: string, requestId: string, proposalId: string) => {
    const identity = {
      caller: { actor: `token:${token}`, grants: ALL_GRANTS },
      decider: `token:${token}`,
      actor: `token:${token}`,
      sessionId: 's',
    } as unknown as ConsoleIdentity;
    const services = {
      governance,
      requestsRead: { waitFor: () => Promise.resolve() },
    } as unknown as GatewayServices;
    await decide(
      {
        services,
        approval: { kind: 'local' },
        read: () => Promise.resolve({ request: { requestId, pendingProposal: { proposalId } } }),
      },
      identity,
      requestId,
      { kind: 'approve', proposalId },
      AbortSignal.timeout(5000),
    );
  };

  const refusal = async (run: Promise<unknown>): Promise<string> => {
    const error: unknown = await run.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isCogitaveError(error) && error.code).toBe('PERMISSION_DENIED');
    return (error as Error).message;
  };

  it("given ada's agent token proposed, when ada approves as her console token, her GitHub login or her name, then each is refused as her own proposal, and grace's approval counts", async () => {
    const requestId = await proposeIntake(local.handlers, 1, 'token:ada-agent');
    const proposalId = await proposeAcceptance(local.handlers, requestId, 'token:ada-agent');

    const viaConsole = await refusal(decideInConsole('ada-console', requestId, proposalId));
    const viaLogin = await refusal(
      governance.decideLocally({ proposalId, decision: 'approve', as: 'ada-lovelace' }),
    );
    const viaName = await refusal(
      governance.decideLocally({ proposalId, decision: 'approve', as: 'ada' }),
    );
    for (const message of [viaConsole, viaLogin, viaName]) {
      expect(message).toContain('principal ada');
      expect(message).toContain('four eyes');
    }
    expect((await requestEvents(local, requestId)).map((e) => e.type)).not.toContain(
      'StageAdvanceApproved',
    );

    await governance.decideLocally({ proposalId, decision: 'approve', as: 'grace' });
    const view = foldRequestStream(await requestEvents(local, requestId));
    expect(view?.stage).toBe('accepted');
    expect(findProposal(view!, proposalId)?.decision).toMatchObject({ by: 'grace', via: 'local' });
  });

  it("given grace's login proposed, when ada approves in the console with her console token, then it counts: another principal, a maintainer", async () => {
    const requestId = await proposeIntake(local.handlers, 2, 'github:grace');
    const proposalId = await proposeAcceptance(local.handlers, requestId, 'github:grace');

    await decideInConsole('ada-console', requestId, proposalId);

    const view = foldRequestStream(await requestEvents(local, requestId));
    expect(findProposal(view!, proposalId)?.decision).toMatchObject({
      by: 'token:ada-console',
      via: 'local',
    });
  });
});
