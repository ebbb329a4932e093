import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { foldRequestStream } from '../../../services/github/render.js';
import { findProposal } from '../../../services/requests/fold.js';
import {
  MAX_RESTORE_ATTEMPTS,
  fileRestoreBranch,
  renderRecordedRequestFile,
} from '../../../services/github/reconcile.js';
import type { RepositoryDivergedData } from '../../../services/governance/divergence.js';
import {
  OWNER,
  REPO,
  proposeAcceptance,
  proposeIntake,
  reactorCaughtUp,
  requestEvents,
  waitFor,
} from './harness.js';
import { PRINCIPALS, webhookWorldForFile, type Json } from './webhook-world.js';

/**
 * GitHub and the log disagreeing outside a decision: a proposal branch deleted or pushed onto, a
 * request file edited or deleted by hand on the base branch, a restore pull request closed or its
 * branch deleted unmerged. Real `delete`, `push` and `pull_request` payloads of
 * @octokit/webhooks-examples, patched to the double's repository and objects and signed, over
 * HTTP; each case is detected and reconciled by the reactor, none is waited on.
 */
const { world, h } = webhookWorldForFile('github_drift', { principals: PRINCIPALS });

const deletePayload = (branch: string, sender: string): Json =>
  world().deletePayload(branch, sender);

const defaultBranch = (): string => String(world().repositoryJson().default_branch);

const pushPayload = (
  after: string,
  sender: string,
  files: { modified?: string[]; removed?: string[] },
  branch?: string,
): Json => world().pushPayload(after, sender, files, branch);

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

  it('given a proposal rejected by closing its pull request, when its branch is deleted after, then the proposal stays rejected by the close and nothing is said on the pull request', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      3,
      'token:octocat-agent',
    );
    h().double.closePullRequest(OWNER, REPO, pull, { closedBy: 'grace' });
    const closed = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(closed.body).toMatchObject({ status: 'applied', command: 'rejectProposal' });
    const commentsBefore = h().double.listComments(OWNER, REPO, pull).length;
    h().double.deleteBranch(OWNER, REPO, `cogitave/${proposalId}`, { by: 'grace' });
    await world().deliver('delete', deletePayload(`cogitave/${proposalId}`, 'grace'));
    await world().runReactor();

    const rejections = (await requestEvents(h(), requestId)).filter(
      (e) => e.type === 'StageAdvanceRejected',
    );
    expect(rejections).toHaveLength(1);
    expect((rejections[0]?.data as { reason?: string }).reason).not.toMatch(/deleted/);
    expect(h().double.listComments(OWNER, REPO, pull)).toHaveLength(commentsBefore);
    expect(h().double.violations).toEqual([]);
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

const divergences = async (requestId: string): Promise<RepositoryDivergedData[]> =>
  (await h().eventStore.readStream(`github-divergence-${requestId}`)).map(
    (event) => event.data as RepositoryDivergedData,
  );

const pullOfBranch = (branch: string) =>
  h()
    .double.listPullRequests(OWNER, REPO)
    .find((candidate) => candidate.head.ref === branch);

/** The reactor's commit on the proposal branch, as the log recorded it. */
const recordedHead = async (requestId: string): Promise<string | undefined> =>
  (
    (await requestEvents(h(), requestId)).find((e) => e.type === 'ProposalPullRequestOpened')
      ?.data as { headSha?: string } | undefined
  )?.headSha;

const rerunReactorFromStart = (name: string) => world().rerunReactorFromStart(name);

describe('a push to a proposal branch before its merge', () => {
  it('given a pending proposal, when the pushes of the reactor itself are delivered (the branch created at the base head, then its commit), then both are ignored and nothing is appended', async () => {
    const { requestId, proposalId } = await world().proposalWithPull(5, 'token:octocat-agent');
    const branch = `cogitave/${proposalId}`;
    const ours = await recordedHead(requestId);
    expect(ours).toMatch(/^[0-9a-f]{40}$/);
    expect(
      h()
        .double.listRefs(OWNER, REPO)
        .find((r) => r.ref === `refs/heads/${branch}`)?.sha,
    ).toBe(ours);
    const before = await world().head();

    const created = {
      ...pushPayload(
        String(
          h()
            .double.listRefs(OWNER, REPO)
            .find((r) => r.ref === `refs/heads/${defaultBranch()}`)?.sha,
        ),
        'octocat',
        {},
        branch,
      ),
      created: true,
      commits: [],
    };
    expect((await world().deliver('push', created)).body).toMatchObject({ status: 'ignored' });
    const own = pushPayload(
      ours ?? '',
      'octocat',
      { modified: [`requests/${requestId}.md`] },
      branch,
    );
    const answer = await world().deliver('push', own);
    expect(answer.body).toMatchObject({ status: 'ignored' });
    expect(String(answer.body.reason)).toContain('the commit the reactor made');
    expect(await world().head()).toBe(before);
  });

  it('given a pending proposal, when someone pushes an edit of the request file to its branch, then the push is recorded once, the pull request says a merge applies only the recorded proposal, and after another maintainer merges the log has the proposed stage and a pull request restores the recorded file', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      6,
      'token:octocat-agent',
    );
    const branch = `cogitave/${proposalId}`;
    const path = `requests/${requestId}.md`;
    const ours = (await recordedHead(requestId)) ?? '';
    const proposed = h().double.listFiles(OWNER, REPO, ours)[path];

    const pushed = h().double.commitFile(
      OWNER,
      REPO,
      branch,
      { path, content: '---\nstage: done\n---\nskipped ahead on the proposal branch\n' },
      { by: 'intern-bot' },
    );
    const deliveryId = randomUUID();
    const answer = await world().deliver(
      'push',
      pushPayload(pushed, 'intern-bot', { modified: [path] }, branch),
      { id: deliveryId },
    );
    expect(answer.body).toMatchObject({
      status: 'recorded',
      kinds: ['proposal_branch_pushed'],
      requestIds: [requestId],
    });
    // Redelivered: the same delivery records nothing new.
    const afterFirst = await world().head();
    await world().deliver('push', pushPayload(pushed, 'intern-bot', { modified: [path] }, branch), {
      id: deliveryId,
    });
    expect(await world().head()).toBe(afterFirst);
    const recorded = (await divergences(requestId)).filter(
      (d) => d.kind === 'proposal_branch_pushed',
    );
    expect(recorded).toEqual([
      expect.objectContaining({
        proposalId,
        by: 'intern-bot',
        mergeCommitSha: pushed,
        pullNumber: pull,
      }),
    ]);

    await world().runReactor();
    const warnings = () =>
      h()
        .double.listComments(OWNER, REPO, pull)
        .filter((c) => (c.body ?? '').includes(`cogitave:branch-pushed=${proposalId}:${pushed}`));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.body).toContain('approves only what the log records');
    expect(warnings()[0]?.body).toContain('@intern-bot');
    // The branch itself is left as pushed: nobody's work is thrown away.
    expect(h().double.listFiles(OWNER, REPO, branch)[path]).toContain('skipped ahead');

    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const merged = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(merged.body).toMatchObject({ status: 'applied', command: 'approveProposal' });
    expect((await outcomeOf(requestId, proposalId))?.outcome).toBe('approved');
    const view = foldRequestStream(await requestEvents(h(), requestId));
    expect(view?.stage).toBe('accepted');
    // The base branch now has the pushed file, which the log never approved.
    const mergeSha = String(merge.merge_commit_sha);
    expect(h().double.listFiles(OWNER, REPO)[path]).toContain('skipped ahead');

    const mergedPush = await world().deliver(
      'push',
      pushPayload(mergeSha, 'grace', { modified: [path] }),
    );
    expect(mergedPush.body).toMatchObject({ status: 'recorded', kinds: ['file_changed'] });
    await world().runReactor();
    const restore = fileRestoreBranch(requestId, mergeSha);
    expect(h().double.listFiles(OWNER, REPO, restore)[path]).toBe(proposed);
    expect(renderRecordedRequestFile(await requestEvents(h(), requestId))).toBe(proposed);
    expect(pullOfBranch(restore)?.state).toBe('open');

    // A reactor that handles the whole log again (a lost checkpoint) adds no comment or pull.
    const pullsBefore = h().double.listPullRequests(OWNER, REPO).length;
    const again = await rerunReactorFromStart('github-reactor-rerun-push');
    expect(again.failures).toEqual([]);
    expect(warnings()).toHaveLength(1);
    expect(h().double.listPullRequests(OWNER, REPO)).toHaveLength(pullsBefore);
    expect(h().double.violations).toEqual([]);
  });

  it('given commits pushed onto a proposal branch, when the push of its merge is delivered and reconciled before the merge itself, then the restore waits for the decision and carries the file of the approved stage', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      12,
      'token:octocat-agent',
    );
    const branch = `cogitave/${proposalId}`;
    const path = `requests/${requestId}.md`;
    const proposed = h().double.listFiles(OWNER, REPO, (await recordedHead(requestId)) ?? '')[path];
    h().double.commitFile(
      OWNER,
      REPO,
      branch,
      { path, content: '---\nstage: done\n---\npushed before the merge\n' },
      { by: 'intern-bot' },
    );
    const merge = h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
    const mergeSha = String(merge.merge_commit_sha);
    const restore = fileRestoreBranch(requestId, mergeSha);

    await world().deliver('push', pushPayload(mergeSha, 'grace', { modified: [path] }));
    await world().runReactor();
    // The merge decides first: no restore of the file of a stage the log has not reached yet.
    expect(pullOfBranch(restore)).toBeUndefined();

    const merged = await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    expect(merged.body).toMatchObject({ status: 'applied', command: 'approveProposal' });
    await world().runReactor();
    expect(h().double.listFiles(OWNER, REPO, restore)[path]).toBe(proposed);
    expect(pullOfBranch(restore)?.body ?? '').toContain(`The merge of #${pull} by @grace`);
    expect(
      h()
        .double.listPullRequests(OWNER, REPO)
        .filter((candidate) => candidate.head.ref.startsWith(`cogitave/restore-${requestId}`)),
    ).toHaveLength(1);
  });

  it('given the reactor made its commit but had not recorded it yet, when that push is delivered, then it is recorded as a push but the reactor, once it recorded its commit, says nothing', async () => {
    const requestId = await proposeIntake(h().handlers, 11, 'token:octocat-agent');
    const proposalId = await proposeAcceptance(h().handlers, requestId, 'token:octocat-agent');
    const branch = `cogitave/${proposalId}`;
    // A reactor that does the GitHub work but cannot record it (as if it died right after).
    const doomed = h().reactor(h().client(), {
      name: 'github-reactor-doomed-push',
      handlers: {
        ...h().handlers,
        recordProposalPullRequest: () =>
          Promise.reject(Object.assign(new Error('crashed'), { status: 503 })),
      },
    });
    doomed.start();
    await waitFor(
      () => doomed.status().retrying?.type === 'StageAdvanceProposed',
      10_000,
      'the doomed reactor to retry',
    );
    await doomed.stop();
    const own = h()
      .double.listRefs(OWNER, REPO)
      .find((r) => r.ref === `refs/heads/${branch}`)?.sha;
    expect(own).toBeDefined();
    expect(await recordedHead(requestId)).toBeUndefined();

    const answer = await world().deliver(
      'push',
      pushPayload(own ?? '', 'octocat', { modified: [`requests/${requestId}.md`] }, branch),
    );
    expect(answer.body).toMatchObject({ status: 'recorded', kinds: ['proposal_branch_pushed'] });
    await world().runReactor();
    expect(await recordedHead(requestId)).toBe(own);
    const pull = pullOfBranch(branch);
    expect(pull).toBeDefined();
    expect(
      h()
        .double.listComments(OWNER, REPO, pull?.number ?? 0)
        .filter((c) => (c.body ?? '').includes('cogitave:branch-pushed')),
    ).toEqual([]);
  });

  it('given a push to the branch of a proposal already decided, when delivered, then it is ignored', async () => {
    const { requestId, proposalId, pull } = await world().proposalWithPull(
      7,
      'token:octocat-agent',
    );
    h().double.closePullRequest(OWNER, REPO, pull, { closedBy: 'grace' });
    await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
    const branch = `cogitave/${proposalId}`;
    const pushed = h().double.commitFile(
      OWNER,
      REPO,
      branch,
      { path: 'notes.md', content: 'late\n' },
      { by: 'intern-bot' },
    );
    const before = await world().head();
    const answer = await world().deliver(
      'push',
      pushPayload(pushed, 'intern-bot', { modified: ['notes.md'] }, branch),
    );
    expect(answer.body).toMatchObject({ status: 'ignored' });
    expect(String(answer.body.reason)).toContain('rejected');
    expect(await world().head()).toBe(before);
    expect((await outcomeOf(requestId, proposalId))?.outcome).toBe('rejected');
  });
});

/** A request whose file was edited by hand on the base branch, and the restore it got. */
const handEditWithRestore = async (n: number) => {
  const { requestId, pull } = await world().proposalWithPull(n, 'token:octocat-agent');
  h().double.mergePullRequest(OWNER, REPO, pull, { mergedBy: 'grace' });
  await world().deliver('pull_request', world().pullPayload(pull, 'grace'));
  const path = `requests/${requestId}.md`;
  const edited = h().double.commitFile(
    OWNER,
    REPO,
    defaultBranch(),
    { path, content: '---\nstage: done\n---\nedited by hand\n' },
    { by: 'intern-bot' },
  );
  await world().deliver('push', pushPayload(edited, 'intern-bot', { modified: [path] }));
  await world().runReactor();
  const branch = fileRestoreBranch(requestId, edited);
  const restore = pullOfBranch(branch);
  if (!restore) throw new Error(`no restore pull request on ${branch}`);
  return {
    requestId,
    path,
    branch,
    restore: restore.number,
    recorded: renderRecordedRequestFile(await requestEvents(h(), requestId)),
  };
};

/** What GitHub sends when a maintainer closes a restore and deletes its branch. */
const abandon = async (number: number, branch: string, ids: { close: string; delete: string }) => {
  h().double.closePullRequest(OWNER, REPO, number, { closedBy: 'grace' });
  h().double.deleteBranch(OWNER, REPO, branch, { by: 'grace' });
  const closed = await world().deliver('pull_request', world().pullPayload(number, 'grace'), {
    id: ids.close,
  });
  const deleted = await world().deliver('delete', deletePayload(branch, 'grace'), {
    id: ids.delete,
  });
  return { closed, deleted };
};

describe('a restore pull request closed or its branch deleted', () => {
  it('given an open restore, when it is closed unmerged and its branch deleted (both delivered, then redelivered), then each delivery is recorded once, the reactor opens one next restore and points to it, and a restart changes nothing', async () => {
    const { requestId, path, branch, restore, recorded } = await handEditWithRestore(8);
    const ids = { close: randomUUID(), delete: randomUUID() };
    const { closed, deleted } = await abandon(restore, branch, ids);
    expect(closed.body).toMatchObject({ status: 'recorded', kinds: ['restore_abandoned'] });
    expect(deleted.body).toMatchObject({ status: 'recorded', kinds: ['restore_abandoned'] });
    const before = await world().head();
    await world().deliver('pull_request', world().pullPayload(restore, 'grace'), { id: ids.close });
    await world().deliver('delete', deletePayload(branch, 'grace'), { id: ids.delete });
    expect(await world().head()).toBe(before);
    expect((await divergences(requestId)).filter((d) => d.kind === 'restore_abandoned')).toEqual([
      expect.objectContaining({ branch, pullNumber: restore, by: 'grace' }),
      expect.objectContaining({ branch, pullNumber: null, by: 'grace' }),
    ]);

    await world().runReactor();
    const next = pullOfBranch(`${branch}-r2`);
    expect(next?.state).toBe('open');
    expect(h().double.listFiles(OWNER, REPO, `${branch}-r2`)[path]).toBe(recorded);
    expect(next?.body ?? '').toContain('closed without merging');
    expect(
      h()
        .double.listComments(OWNER, REPO, restore)
        .filter((c) => (c.body ?? '').includes(`#${next?.number}`)),
    ).toHaveLength(1);

    const pullsBefore = h().double.listPullRequests(OWNER, REPO).length;
    const again = await rerunReactorFromStart('github-reactor-rerun-restore');
    expect(again.failures).toEqual([]);
    expect(h().double.listPullRequests(OWNER, REPO)).toHaveLength(pullsBefore);
    expect(
      h()
        .double.listComments(OWNER, REPO, restore)
        .filter((c) => (c.body ?? '').includes('restores it instead')),
    ).toHaveLength(1);
    expect(h().double.violations).toEqual([]);
  });

  it('given a restore that was merged, when its close and the delete of its branch are delivered, then the close is ignored, and the reactor opens nothing', async () => {
    const { requestId, branch, restore, recorded, path } = await handEditWithRestore(9);
    h().double.mergePullRequest(OWNER, REPO, restore, { mergedBy: 'grace' });
    h().double.deleteBranch(OWNER, REPO, branch, { by: 'grace' });
    expect(h().double.listFiles(OWNER, REPO)[path]).toBe(recorded);
    const closed = await world().deliver('pull_request', world().pullPayload(restore, 'grace'));
    expect(closed.body).toMatchObject({ status: 'ignored' });
    expect(String(closed.body.reason)).toContain('merged');
    const deleted = await world().deliver('delete', deletePayload(branch, 'grace'));
    expect(deleted.body).toMatchObject({ status: 'recorded', kinds: ['restore_abandoned'] });
    await world().runReactor();
    expect(pullOfBranch(`${branch}-r2`)).toBeUndefined();
    expect(
      (await divergences(requestId)).filter((d) => d.kind === 'restore_abandoned'),
    ).toHaveLength(1);
  });

  // Last in the file: it leaves a failed event, which a reactor handling the log again reports.
  it(`given restores that keep being closed, when the last of ${MAX_RESTORE_ATTEMPTS} is closed, then the reactor opens no more, says so on the intake issue and reports a failure for an operator`, async () => {
    const { requestId, branch, restore } = await handEditWithRestore(10);
    const events = await requestEvents(h(), requestId);
    const issue = (
      events.find((e) => e.type === 'IntakeIssueOpened')?.data as { issueNumber: number }
    ).issueNumber;
    let current = { branch, number: restore };
    for (let attempt = 2; attempt <= MAX_RESTORE_ATTEMPTS; attempt += 1) {
      await abandon(current.number, current.branch, { close: randomUUID(), delete: randomUUID() });
      await world().runReactor();
      const next = pullOfBranch(`${branch}-r${attempt}`);
      expect(next?.state).toBe('open');
      current = { branch: `${branch}-r${attempt}`, number: next?.number ?? 0 };
    }
    const pullsBefore = h().double.listPullRequests(OWNER, REPO).length;
    h().double.closePullRequest(OWNER, REPO, current.number, { closedBy: 'grace' });
    await world().deliver('pull_request', world().pullPayload(current.number, 'grace'));

    const reactor = h().reactor(h().client());
    reactor.start();
    await reactorCaughtUp(h(), reactor);
    await reactor.stop();
    expect(reactor.status().failures).toEqual([
      expect.objectContaining({
        eventType: 'RepositoryDiverged',
        error: expect.stringContaining('an operator must decide') as unknown,
      }),
    ]);
    expect(h().double.listPullRequests(OWNER, REPO)).toHaveLength(pullsBefore);
    expect(pullOfBranch(`${branch}-r${MAX_RESTORE_ATTEMPTS + 1}`)).toBeUndefined();
    expect(
      h()
        .double.listComments(OWNER, REPO, issue)
        .filter((c) => (c.body ?? '').includes('Cogitave opens no more')),
    ).toHaveLength(1);
  });
});
