import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import { describe, expect, it } from 'vitest';
import { foldRequestStream } from '../../../services/github/render.js';
import { findProposal } from '../../../services/requests/fold.js';
import {
  fileRestoreBranch,
  renderRecordedRequestFile,
} from '../../../services/github/reconcile.js';
import { OWNER, REPO, proposeAcceptance, requestEvents } from './harness.js';
import { PRINCIPALS, example, webhookWorldForFile, type Json } from './webhook-world.js';

/**
 * GitHub and the log disagreeing outside a decision: a proposal branch deleted, a request file
 * edited or deleted by hand on the base branch. Real `delete` and `push` payloads of
 * @octokit/webhooks-examples, patched to the double's repository and objects and signed, over
 * HTTP; each case is detected and reconciled by the reactor, none is waited on.
 */
const { world, h } = webhookWorldForFile('github_drift', { principals: PRINCIPALS });

const deletePayload = (branch: string, sender: string): Json => ({
  ...example('delete'),
  ref: branch,
  ref_type: 'branch',
  repository: world().repositoryJson(),
  sender: h().double.user(sender),
});

const examples = createRequire(import.meta.url)(
  '@octokit/webhooks-examples',
) as WebhookDefinition[];
/** The push example of a branch with a commit (the others are tag pushes without commits). */
const pushExample = examples
  .find((definition) => definition.name === 'push')
  ?.examples.find((payload) => ((payload as { commits?: unknown[] }).commits ?? []).length > 0) as
  Json | undefined;
if (!pushExample) throw new Error('no push example with a commit in @octokit/webhooks-examples');

const defaultBranch = (): string => String(world().repositoryJson().default_branch);

const pushPayload = (
  after: string,
  sender: string,
  files: { modified?: string[]; removed?: string[] },
): Json => {
  const payload = structuredClone(pushExample);
  const commit = (payload.commits as Json[])[0] ?? {};
  return {
    ...payload,
    ref: `refs/heads/${defaultBranch()}`,
    after,
    deleted: false,
    repository: world().repositoryJson(),
    sender: h().double.user(sender),
    commits: [
      {
        ...commit,
        id: after,
        added: [],
        modified: files.modified ?? [],
        removed: files.removed ?? [],
      },
    ],
  };
};

const outcomeOf = async (requestId: string, proposalId: string) => {
  const view = foldRequestStream(await requestEvents(h(), requestId));
  return view && findProposal(view, proposalId);
};

describe('a proposal branch deleted', () => {
  it('given a pending proposal, when its branch is deleted and the close of its pull request is never delivered, then the proposal ends, the pull request says why, and the agent can propose again', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      1,
      'token:octocat-agent',
    );
    h().double.deleteBranch(OWNER, REPO, `cogitave/${proposalId}`, { by: 'grace' });
    expect(h().double.getPullRequest(OWNER, REPO, pull).state).toBe('closed');

    const deliveryId = randomUUID();
    const answer = await world().deliver(
      'delete',
      deletePayload(`cogitave/${proposalId}`, 'grace'),
      {
        id: deliveryId,
      },
    );
    expect(answer.body).toMatchObject({ status: 'recorded', kinds: ['branch_deleted'] });
    await world().runReactor();

    const proposal = await outcomeOf(requestId, proposalId);
    expect(proposal?.outcome).toBe('rejected');
    const rejected = (await requestEvents(h(), requestId)).find(
      (e) => e.type === 'StageAdvanceRejected',
    );
    expect((rejected?.data as { reason?: string }).reason).toMatch(/deleted by grace/);
    expect(
      h()
        .double.listComments(OWNER, REPO, pull)
        .some((c) => (c.body ?? '').includes('was deleted')),
    ).toBe(true);

    // The close arrives late: the proposal is decided already, nothing more happens.
    const late = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(['applied', 'refused']).toContain(late.body.status);
    const rejections = (await requestEvents(h(), requestId)).filter(
      (e) => e.type === 'StageAdvanceRejected',
    );
    expect(rejections).toHaveLength(1);
    // A redelivery of the delete records nothing new.
    const before = await world().head();
    await world().deliver('delete', deletePayload(`cogitave/${proposalId}`, 'grace'), {
      id: deliveryId,
    });
    expect(await world().head()).toBe(before);

    await expect(
      proposeAcceptance(h().handlers, requestId, 'token:octocat-agent'),
    ).resolves.toBeTruthy();
  });

  it('given a merged pull request whose branch is deleted right after, when the delete is delivered before the merge, then the merge still decides', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      2,
      'token:octocat-agent',
    );
    h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    h().double.deleteBranch(OWNER, REPO, `cogitave/${proposalId}`, { by: 'grace' });

    await world().deliver('delete', deletePayload(`cogitave/${proposalId}`, 'grace'));
    await world().runReactor();
    expect((await outcomeOf(requestId, proposalId))?.outcome).toBe('pending');

    const merged = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(merged.body).toMatchObject({ status: 'applied', command: 'approveProposal' });
    expect((await outcomeOf(requestId, proposalId))?.outcome).toBe('approved');
  });

  it('given a branch that is no proposal branch, when deleted, then the delivery is ignored and nothing is appended', async () => {
    const before = await world().head();
    const answer = await world().deliver('delete', deletePayload('feature/x', 'grace'));
    expect(answer.body).toMatchObject({ status: 'ignored' });
    expect(await world().head()).toBe(before);
  });
});

describe('a request file changed on the base branch', () => {
  it('given a counted merge, when its push is delivered, then the file agrees with the log and nothing is opened', async () => {
    const { requestId, pull } = await world().proposalWithPull(3, 'token:octocat-agent');
    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    const sha = String(merge.merge_commit_sha);
    // Delivered in either order: the merge's push may be handled before the merge decides.
    const pushed = await world().deliver(
      'push',
      pushPayload(sha, 'grace', { modified: [`requests/${requestId}.md`] }),
    );
    expect(pushed.body).toMatchObject({
      status: 'recorded',
      kinds: ['file_changed'],
      requestIds: [requestId],
    });
    await world().runReactor();
    expect(
      h()
        .double.listRefs(OWNER, REPO)
        .map((r) => r.ref),
    ).not.toContain(`refs/heads/${fileRestoreBranch(requestId, sha)}`);
  });

  it('given the file edited by hand, then deleted by hand, when each push is delivered, then each is answered by a pull request restoring the recorded file', async () => {
    const { requestId, pull } = await world().proposalWithPull(4, 'token:octocat-agent');
    h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    const path = `requests/${requestId}.md`;
    const recorded = renderRecordedRequestFile(await requestEvents(h(), requestId));

    const edited = h().double.commitFile(
      OWNER,
      REPO,
      defaultBranch(),
      { path, content: '---\nstage: done\n---\nskipped ahead by hand\n' },
      { by: 'intern-bot' },
    );
    const answer = await world().deliver(
      'push',
      pushPayload(edited, 'intern-bot', { modified: [path] }),
    );
    expect(answer.body).toMatchObject({ status: 'recorded', kinds: ['file_changed'] });
    await world().runReactor();
    const restoreEdit = fileRestoreBranch(requestId, edited);
    expect(h().double.listFiles(OWNER, REPO, restoreEdit)[path]).toBe(recorded);
    const restorePull = h()
      .double.listPullRequests(OWNER, REPO)
      .find((candidate) => candidate.head.ref === restoreEdit);
    expect(restorePull?.state).toBe('open');
    expect(restorePull?.body ?? '').toContain('edited');

    const removed = h().double.commitFile(
      OWNER,
      REPO,
      defaultBranch(),
      { path, content: null },
      { by: 'intern-bot' },
    );
    await world().deliver('push', pushPayload(removed, 'intern-bot', { removed: [path] }));
    await world().runReactor();
    expect(h().double.listFiles(OWNER, REPO, fileRestoreBranch(requestId, removed))[path]).toBe(
      recorded,
    );
    // The log is unchanged by either: no stage moved.
    const events = await requestEvents(h(), requestId);
    expect(events.filter((e) => e.type === 'StageAdvanced')).toHaveLength(1);
    expect(h().double.violations).toEqual([]);
  });

  it('given a push to another branch or touching no request file, when delivered, then it is ignored', async () => {
    const before = await world().head();
    const other = {
      ...pushPayload('a'.repeat(40), 'grace', { modified: ['requests/req-2026-0001.md'] }),
      ref: 'refs/heads/feature',
    };
    expect((await world().deliver('push', other)).body).toMatchObject({ status: 'ignored' });
    const unrelated = pushPayload('b'.repeat(40), 'grace', { modified: ['README.md'] });
    expect((await world().deliver('push', unrelated)).body).toMatchObject({ status: 'ignored' });
    expect(await world().head()).toBe(before);
  });
});
