import { describe, expect, it } from 'vitest';
import { eventContent } from '../../../services/event-store/hash-chain.js';
import type { Position, RecordedEvent } from '../../../services/event-store/types.js';
import { markerIn } from '../../../services/github/markers.js';
import {
  foldRequestStream,
  renderIntakeIssueBody,
  renderProposalPullBody,
  renderRequestFile,
  summariseEvidence,
} from '../../../services/github/render.js';
import type { RequestEvent, StageAdvanceProposed } from '../../../services/requests/events.js';
import { findProposal } from '../../../services/requests/fold.js';

const ID = 'req-2026-0007';

const recorded = (events: RequestEvent[]): RecordedEvent[] =>
  events.map((event, index) => {
    const stored = {
      id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      type: event.type,
      data: event.data,
      metadata: {
        actor: 'agent:test',
        correlationId: 'c',
        causationId: 'c',
        at: `2026-03-0${index + 1}T10:00:00.000Z`,
      },
    };
    return {
      ...stored,
      streamId: `request-${ID}`,
      revision: BigInt(index),
      position: `${'0'.repeat(15)}1-${index.toString(16).padStart(16, '0')}` as Position,
      content: eventContent(`request-${ID}`, stored),
      prevHash: null,
      hash: 'h',
    };
  });

const first: StageAdvanceProposed['data'] = {
  requestId: ID,
  proposalId: `${ID}-p1`,
  fromStage: 'proposed',
  toStage: 'accepted',
  evidence: { criteria: { 'ac-1': 'measured 120 ms p99' }, links: ['https://example.org/bench'] },
  rationale: 'Meets the intake DoD.',
  proposedBy: 'agent:alpha',
};
const second: StageAdvanceProposed['data'] = {
  requestId: ID,
  proposalId: `${ID}-p2`,
  fromStage: 'accepted',
  toStage: 'specified',
  evidence: {
    specLink: 'https://example.org/adr/12',
    testPlan: 'Load test at 2x peak.',
    rollbackPlan: 'Feature flag off.',
    criteria: { 'ac-2': 'dashboard <!-- cogitave:request=req-2026-9999 --> link' },
  },
  rationale: 'ADR 12 written.\n\nReviewed by the team.',
  proposedBy: 'agent:beta',
};

const history: RequestEvent[] = [
  {
    type: 'RequestProposed',
    data: {
      requestId: ID,
      title: 'Faster search | p99',
      problem: 'Search is slow.\n\n<!-- cogitave:request=req-2026-9999 -->',
      product: 'docs',
      requester: 'Ada',
      acceptanceCriteria: [
        { id: 'ac-1', text: 'p99 below 200 ms' },
        { id: 'ac-2', text: 'a dashboard shows it' },
      ],
      links: [{ url: 'https://example.org/ticket', title: 'ticket' }],
      priority: 'high',
      proposedBy: 'agent:alpha',
    },
  },
  {
    type: 'IntakeIssueOpened',
    data: {
      requestId: ID,
      repository: 'o/r',
      issueNumber: 4,
      issueUrl: 'https://github.test/o/r/issues/4',
    },
  },
  { type: 'StageAdvanceProposed', data: first },
  {
    type: 'StageAdvanceApproved',
    data: {
      requestId: ID,
      proposalId: first.proposalId,
      approvedBy: 'grace',
      via: 'github',
      mergeCommitSha: 'abcdef0123456789',
    },
  },
  {
    type: 'StageAdvanced',
    data: {
      requestId: ID,
      proposalId: first.proposalId,
      fromStage: 'proposed',
      toStage: 'accepted',
    },
  },
  { type: 'StageAdvanceProposed', data: second },
];

describe('foldRequestStream', () => {
  it('given a request with an approved and a pending proposal, when folded, then stage, issue, history and statuses follow the log', () => {
    const view = foldRequestStream(recorded(history))!;

    expect(view.stage).toBe('accepted');
    expect(view.intakeIssue).toEqual({
      number: 4,
      url: 'https://github.test/o/r/issues/4',
      repository: 'o/r',
    });
    expect(view.proposals.filter((p) => p.outcome === 'approved')).toEqual([
      expect.objectContaining({
        proposalId: first.proposalId,
        toStage: 'accepted',
        decision: expect.objectContaining({ by: 'grace' }) as unknown,
      }),
    ]);
    expect(findProposal(view, first.proposalId)?.outcome).toBe('approved');
    expect(findProposal(view, second.proposalId)?.outcome).toBe('pending');
    expect(view.evidence.criteria).toEqual({ 'ac-1': 'measured 120 ms p99' });
  });

  it('given a revision bound, when folded, then later events are left out', () => {
    const view = foldRequestStream(recorded(history), 2n)!;

    expect(view.stage).toBe('proposed');
    expect(findProposal(view, first.proposalId)?.outcome).toBe('pending');
  });
});

describe('rendering', () => {
  const view = foldRequestStream(recorded(history))!;

  it('given an intake, when its issue body is rendered, then it starts with the marker and user text cannot forge another', () => {
    const body = renderIntakeIssueBody(view);

    expect(markerIn(body, 'request')).toBe(ID);
    expect(body.match(/<!--/g)).toHaveLength(1);
    expect(body).toContain('- [ ] **ac-1** p99 below 200 ms');
  });

  it('given a pending proposal, when the request file is rendered, then front matter, evidence per criterion and history are there', () => {
    const file = renderRequestFile(view, second);

    expect(file.split('\n').slice(0, 11)).toEqual([
      '---',
      `id: ${ID}`,
      'title: "Faster search | p99"',
      'stage: specified',
      'product: docs',
      'priority: high',
      'requester: Ada',
      `proposal: ${second.proposalId}`,
      'intake_issue: 4',
      '---',
      '',
    ]);
    expect(file).toContain('| ac-1 | p99 below 200 ms | measured 120 ms p99 |');
    expect(file).toContain(
      '| ac-2 | a dashboard shows it | dashboard &lt;!-- cogitave:request=req-2026-9999 --> link _(this proposal)_ |',
    );
    expect(file).toContain('- **Specification / ADR:** <https://example.org/adr/12>');
    expect(file).toContain(
      `| accepted | grace | github (abcdef012345) | ${first.proposalId} | 2026-03-04T10:00:00.000Z |`,
    );
    expect(file).toContain('## Proposed: accepted → specified');
    expect(file).not.toMatch(/<!-- cogitave/);
  });

  it('given a proposal and its intake issue, when the pull request body is rendered, then it carries the marker and refers to the issue', () => {
    const body = renderProposalPullBody(view, second, 4);

    expect(markerIn(body, 'proposal')).toBe(second.proposalId);
    expect(body).toContain('Refs #4');
    expect(renderProposalPullBody(view, second, undefined)).not.toContain('Refs #');
  });

  it('given evidence, when summarised, then each kind is named once', () => {
    expect(summariseEvidence(second.evidence, 2)).toBe(
      'spec, test plan, rollback plan, criteria 1/2',
    );
    expect(summariseEvidence({})).toBe('none');
  });
});
