import { createRequire } from 'node:module';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import { describe, expect, it } from 'vitest';
import type { ProposalRecord } from '../../../services/requests/fold.js';
import {
  factsOfProposalBranchPush,
  readDelivery,
  type DeliveryFacts,
  type ProposalBranchPush,
} from '../../../services/github/webhooks/facts.js';

/**
 * The pure reading of verified deliveries: real payloads of @octokit/webhooks-examples
 * (repository Codertocat/Hello-World, default branch master), patched only where a field must
 * name one of our branches or markers.
 */
type Json = Record<string, unknown>;
type Patch = (payload: Json) => void;

const examples = createRequire(import.meta.url)(
  '@octokit/webhooks-examples',
) as WebhookDefinition[];

const example = (name: string, pick: (payload: Json) => boolean = () => true): Json => {
  const found = examples
    .find((definition) => definition.name === name)
    ?.examples.find((payload) => pick(payload as Json));
  if (!found) throw new Error(`no ${name} example in @octokit/webhooks-examples`);
  return structuredClone(found) as Json;
};

const patched = (payload: Json, ...patches: Patch[]): Json => {
  for (const patch of patches) patch(payload);
  return payload;
};

const scope = { repository: 'Codertocat/Hello-World' };
const pullOf = (payload: Json) => payload.pull_request as Json & { head: Json; base: Json };

const pullClosed = (...patches: Patch[]): Json =>
  patched(
    example('pull_request', (payload) => payload.action === 'closed'),
    (payload) => {
      pullOf(payload).head.ref = 'cogitave/req-2026-0001-p1';
    },
    ...patches,
  );

const merged: Patch = (payload) => {
  Object.assign(pullOf(payload), {
    merged: true,
    merged_by: { login: 'grace' },
    merge_commit_sha: 'abc123',
  });
};

const branchPush = (branch: string, ...patches: Patch[]): Json =>
  patched(
    example('push', (payload) => ((payload.commits as unknown[] | undefined) ?? []).length > 0),
    (payload) => {
      payload.ref = `refs/heads/${branch}`;
      payload.created = false;
    },
    ...patches,
  );

const decisionOf = (facts: DeliveryFacts) => {
  if (facts.kind !== 'decision') throw new Error(`expected a decision, got ${facts.kind}`);
  return facts.decision;
};

describe('webhook facts', () => {
  it('given a proposal pull request merged by a maintainer, when read, then it is an approval by the merger with the merge commit', () => {
    const decision = decisionOf(readDelivery('pull_request', pullClosed(merged), scope));
    expect(decision).toEqual({
      command: 'approveProposal',
      actor: 'grace',
      pullNumber: 2,
      input: {
        requestId: 'req-2026-0001',
        proposalId: 'req-2026-0001-p1',
        decidedBy: 'grace',
        via: 'github',
        mergeCommitSha: 'abc123',
        reason: 'pull request #2 merged',
      },
    });
  });

  it('given a proposal pull request closed unmerged (the example as GitHub sent it), when read, then it is a rejection by the sender', () => {
    const decision = decisionOf(readDelivery('pull_request', pullClosed(), scope));
    expect(decision).toMatchObject({
      command: 'rejectProposal',
      actor: 'Codertocat',
      input: { proposalId: 'req-2026-0001-p1', reason: 'pull request #2 closed without merging' },
    });
  });

  it('given a proposal pull request reopened, when read, then the reopen is to be recorded', () => {
    const payload = pullClosed((p) => {
      p.action = 'reopened';
    });
    expect(decisionOf(readDelivery('pull_request', payload, scope))).toEqual({
      command: 'recordReopen',
      actor: 'Codertocat',
      pullNumber: 2,
      input: { requestId: 'req-2026-0001', proposalId: 'req-2026-0001-p1' },
    });
  });

  it('given pull requests that are not ours to decide, when read, then each is ignored with its reason', () => {
    const unpatched = example('pull_request', (payload) => payload.action === 'closed');
    expect(readDelivery('pull_request', unpatched, scope)).toEqual({
      kind: 'ignored',
      reason: 'branch changes is not a proposal branch',
    });
    expect(readDelivery('pull_request', pullClosed(), { repository: 'acme/other' })).toEqual({
      kind: 'ignored',
      reason: 'repository Codertocat/Hello-World is not acme/other',
    });
    const fork = pullClosed((p) => {
      pullOf(p).head.repo = { full_name: 'someone/Hello-World' };
    });
    expect(readDelivery('pull_request', fork, scope)).toMatchObject({
      reason: 'the head branch lives in another repository (a fork)',
    });
    expect(
      readDelivery('pull_request', pullClosed(), { ...scope, baseBranch: 'main' }),
    ).toMatchObject({ reason: 'pull request #2 targets master, not main' });
    const opened = example('pull_request', (payload) => payload.action === 'opened');
    expect(readDelivery('pull_request', opened, scope)).toMatchObject({
      reason: 'not a pull_request.closed or .reopened delivery',
    });
    expect(readDelivery('star', {}, scope)).toMatchObject({
      reason: 'star deliveries are not used',
    });
  });

  it('given a restore pull request closed unmerged, when read, then the restore is recorded as abandoned; merged, it is ignored', () => {
    const restore = (...patches: Patch[]) =>
      pullClosed(
        (p) => {
          pullOf(p).head.ref = 'cogitave/restore-req-2026-0001-p1';
        },
        ...patches,
      );
    expect(readDelivery('pull_request', restore(), scope)).toEqual({
      kind: 'diverged',
      facts: [
        {
          requestId: 'req-2026-0001',
          proposalId: 'req-2026-0001-p1',
          kind: 'restore_abandoned',
          pullNumber: 2,
          by: 'Codertocat',
          mergeCommitSha: null,
          branch: 'cogitave/restore-req-2026-0001-p1',
          reason:
            'restore pull request #2 (cogitave/restore-req-2026-0001-p1) closed without merging by Codertocat',
        },
      ],
    });
    expect(readDelivery('pull_request', restore(merged), scope)).toEqual({
      kind: 'ignored',
      reason: 'restore pull request #2 merged: the request file is back',
    });
  });

  it('given an intake issue closed as not planned, when read, then it is a rejection of the intake; closed as completed, it is ignored', () => {
    const closed = (stateReason: string) =>
      patched(example('issues'), (p) => {
        p.action = 'closed';
        Object.assign(p.issue as Json, {
          body: 'intake\n<!-- cogitave:request=req-2026-0007 -->',
          state_reason: stateReason,
          labels: [{ name: 'cogitave' }, { name: 'cogitave:intake' }],
        });
      });
    const issueNumber = (example('issues').issue as { number: number }).number;
    expect(decisionOf(readDelivery('issues', closed('not_planned'), scope))).toEqual({
      command: 'rejectIntake',
      actor: 'Codertocat',
      input: {
        requestId: 'req-2026-0007',
        decidedBy: 'Codertocat',
        via: 'github',
        reason: `issue #${issueNumber} closed as not planned`,
      },
    });
    expect(readDelivery('issues', closed('completed'), scope)).toEqual({
      kind: 'ignored',
      reason: `issue #${issueNumber} closed as completed, not as not planned`,
    });
  });

  it('given a deleted proposal branch, when read, then it is recorded as branch_deleted; a deleted tag is ignored', () => {
    const deleted = patched(example('delete'), (p) => {
      p.ref = 'cogitave/req-2026-0001-p2';
      p.ref_type = 'branch';
    });
    expect(readDelivery('delete', deleted, scope)).toEqual({
      kind: 'diverged',
      facts: [
        {
          requestId: 'req-2026-0001',
          proposalId: 'req-2026-0001-p2',
          kind: 'branch_deleted',
          pullNumber: null,
          by: 'Codertocat',
          mergeCommitSha: null,
          reason: 'branch cogitave/req-2026-0001-p2 deleted by Codertocat',
        },
      ],
    });
    expect(readDelivery('delete', example('delete'), scope)).toEqual({
      kind: 'ignored',
      reason: 'tag simple-tag is not a proposal branch',
    });
  });

  it('given a push to the base branch, when it changes request files, then each request is recorded as file_changed; otherwise ignored', () => {
    const push = branchPush('master', (p) => {
      p.commits = [
        { added: ['requests/req-2026-0001.md'], modified: ['README.md'], removed: [] },
        { added: [], modified: ['requests/req-2026-0002.md'], removed: ['requests/notes.md'] },
      ];
    });
    const facts = readDelivery('push', push, scope);
    expect(facts.kind).toBe('diverged');
    expect(facts.kind === 'diverged' && facts.facts.map((f) => [f.requestId, f.kind])).toEqual([
      ['req-2026-0001', 'file_changed'],
      ['req-2026-0002', 'file_changed'],
    ]);
    expect(readDelivery('push', branchPush('master'), scope)).toEqual({
      kind: 'ignored',
      reason: 'the push changes no request file',
    });
    expect(readDelivery('push', branchPush('feature'), scope)).toEqual({
      kind: 'ignored',
      reason: 'a push to refs/heads/feature, not to the base branch',
    });
  });

  describe('a push to a proposal branch', () => {
    const branch = 'cogitave/req-2026-0001-p1';
    const after = '6113728f27ae82c7b1a177c8d03f9e96e0adf246';
    const pending = {
      proposalId: 'req-2026-0001-p1',
      outcome: 'pending',
      pullRequest: { pullNumber: 5, headSha: 'reactor0commit' },
    } as unknown as ProposalRecord;

    const toLookUp = (payload: Json): ProposalBranchPush => {
      const facts = readDelivery('push', payload, scope);
      if (facts.kind !== 'proposal-branch-push') throw new Error(`got ${facts.kind}`);
      return facts.push;
    };

    it('given commits pushed by someone, when read with the pending proposal, then proposal_branch_pushed is recorded', () => {
      const push = toLookUp(branchPush(branch));
      expect(push).toMatchObject({
        branch,
        requestId: 'req-2026-0001',
        proposalId: pending.proposalId,
      });
      expect(factsOfProposalBranchPush(push, pending)).toEqual({
        kind: 'diverged',
        facts: [
          {
            requestId: 'req-2026-0001',
            proposalId: 'req-2026-0001-p1',
            kind: 'proposal_branch_pushed',
            pullNumber: 5,
            by: 'Codertocat',
            mergeCommitSha: after,
            branch,
            reason: `a push by Codertocat moved ${branch} to ${after}, which is not the commit the reactor made for req-2026-0001-p1`,
          },
        ],
      });
    });

    it("given the reactor's own commit, a decided or unknown proposal, when read, then nothing is recorded", () => {
      const push = toLookUp(branchPush(branch));
      const ours = { ...pending, pullRequest: { pullNumber: 5, headSha: after } } as ProposalRecord;
      expect(factsOfProposalBranchPush(push, ours)).toMatchObject({ kind: 'ignored' });
      const approved = { ...pending, outcome: 'approved' } as ProposalRecord;
      expect(factsOfProposalBranchPush(push, approved)).toEqual({
        kind: 'ignored',
        reason: 'proposal req-2026-0001-p1 is approved already',
      });
      expect(factsOfProposalBranchPush(push, undefined)).toEqual({
        kind: 'ignored',
        reason: 'proposal req-2026-0001-p1 is not in the log',
      });
    });

    it('given the branch created at an existing commit, or deleted, when read, then it is ignored without asking the log', () => {
      const created = branchPush(branch, (p) => {
        p.created = true;
        p.commits = [];
      });
      expect(readDelivery('push', created, scope)).toEqual({
        kind: 'ignored',
        reason: `${branch} created at an existing commit: nothing pushed onto it`,
      });
      const deleted = branchPush(branch, (p) => {
        p.deleted = true;
      });
      expect(readDelivery('push', deleted, scope)).toEqual({
        kind: 'ignored',
        reason: `${branch} deleted (the delete delivery decides)`,
      });
    });
  });
});
