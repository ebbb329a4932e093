import { describe, expect, it } from 'vitest';
import type { Position, RecordedEvent } from '../../../services/event-store/types.js';
import { eventContent } from '../../../services/event-store/hash-chain.js';
import type { RequestEvent } from '../../../services/requests/events.js';
import { parseRequestEvent } from '../../../services/requests/parse.js';
import { fromRequestRow, toRequestRow } from '../../../services/requests/read-model/rows.js';
import {
  evolveRequest,
  requestDocument,
  statusOf,
  summarize,
  type RequestState,
} from '../../../services/requests/read-model/state.js';

let revision = 0n;
const recorded = (event: RequestEvent, at = '2026-01-05T10:00:00+01:00'): RecordedEvent => {
  const stored = {
    id: `00000000-0000-4000-8000-${String(revision).padStart(12, '0')}`,
    type: event.type,
    data: event.data,
    metadata: { actor: 'agent:x', correlationId: 'c', causationId: 'c', at },
  };
  const streamId = `request-${event.data.requestId}`;
  const r: RecordedEvent = {
    ...stored,
    streamId,
    revision,
    position: `0000000000000001-${revision.toString(16).padStart(16, '0')}` as Position,
    content: eventContent(streamId, stored),
    prevHash: null,
    hash: 'h',
  };
  revision += 1n;
  return r;
};

const fold = (...events: RequestEvent[]): RequestState | undefined =>
  events.reduce<RequestState | undefined>((state, event) => {
    const r = recorded(event);
    return evolveRequest(state, r, parseRequestEvent(r));
  }, undefined);

const R = 'req-2026-0001';
const intake: RequestEvent = {
  type: 'RequestProposed',
  data: {
    requestId: R,
    title: 'T',
    problem: 'P',
    product: 'docs',
    requester: 'team',
    acceptanceCriteria: [{ id: 'ac-1', text: 'x' }],
    links: [],
    priority: 'low',
    proposedBy: 'agent:x',
  },
};
const propose = (
  n: number,
  fromStage: 'proposed' | 'accepted' | 'deferred',
  toStage: 'accepted' | 'deferred' | 'specified',
): RequestEvent => ({
  type: 'StageAdvanceProposed',
  data: {
    requestId: R,
    proposalId: `${R}-p${n}`,
    fromStage,
    toStage,
    evidence: { notes: `e${n}` },
    rationale: 'r',
    proposedBy: 'agent:x',
  },
});
const approve = (n: number): RequestEvent => ({
  type: 'StageAdvanceApproved',
  data: {
    requestId: R,
    proposalId: `${R}-p${n}`,
    approvedBy: 'm',
    via: 'local',
    mergeCommitSha: null,
  },
});
const advance = (
  n: number,
  fromStage: 'proposed' | 'accepted' | 'deferred',
  toStage: 'accepted' | 'deferred' | 'specified',
): RequestEvent => ({
  type: 'StageAdvanced',
  data: { requestId: R, proposalId: `${R}-p${n}`, fromStage, toStage },
});

describe('the request fold', () => {
  it('derives the status from the stage', () => {
    expect(
      ['proposed', 'accepted', 'deferred', 'done', 'rejected', 'withdrawn', 'superseded'].map((s) =>
        statusOf(s as never),
      ),
    ).toEqual(['draft', 'active', 'active', 'closed', 'closed', 'closed', 'closed']);
  });

  it('normalises event time to UTC and counts the version from the stream revision', () => {
    revision = 0n;
    const state = fold(intake);
    expect(state).toMatchObject({
      createdAt: '2026-01-05T09:00:00.000Z',
      updatedAt: '2026-01-05T09:00:00.000Z',
      version: 0,
    });
  });

  it('parks in deferred remembering the stage it left, and forgets it on resuming', () => {
    revision = 0n;
    const deferred = fold(
      intake,
      propose(1, 'proposed', 'accepted'),
      approve(1),
      advance(1, 'proposed', 'accepted'),
      propose(2, 'accepted', 'deferred'),
      approve(2),
      advance(2, 'accepted', 'deferred'),
    );
    expect(deferred).toMatchObject({
      stage: 'deferred',
      resumeStage: 'accepted',
      pendingProposalId: null,
    });
    // Approved evidence merges in order: the later proposal's notes win.
    expect(deferred?.evidence).toEqual({ notes: 'e2' });
    const resumed = evolveRequest(
      deferred,
      recorded(advance(3, 'deferred', 'accepted')),
      advance(3, 'deferred', 'accepted'),
    );
    expect(resumed).toMatchObject({ stage: 'accepted', resumeStage: null });
  });

  it('clears the pending proposal only for the proposal decided', () => {
    revision = 0n;
    const pending = fold(intake, propose(1, 'proposed', 'accepted'));
    const other: RequestEvent = {
      type: 'StageAdvanceRejected',
      data: { requestId: R, proposalId: `${R}-p9`, rejectedBy: 'm', via: 'github', reason: 'x' },
    };
    expect(evolveRequest(pending, recorded(other), other).pendingProposalId).toBe(`${R}-p1`);
    const same: RequestEvent = {
      type: 'StageAdvanceRejected',
      data: { requestId: R, proposalId: `${R}-p1`, rejectedBy: 'm', via: 'github', reason: 'x' },
    };
    expect(evolveRequest(pending, recorded(same), same)).toMatchObject({
      pendingProposalId: null,
      stage: 'proposed',
      evidence: {},
    });
    // Approval decides it too, and its evidence joins the request's; the stage moves later.
    expect(evolveRequest(pending, recorded(approve(1)), approve(1))).toMatchObject({
      pendingProposalId: null,
      stage: 'proposed',
      evidence: { notes: 'e1' },
    });
  });

  it('ignores a pull request of a proposal that is no longer pending', () => {
    revision = 0n;
    const state = fold(intake);
    const pr: RequestEvent = {
      type: 'ProposalPullRequestOpened',
      data: {
        requestId: R,
        proposalId: `${R}-p1`,
        repository: 'o/r',
        branch: 'b',
        pullNumber: 5,
        pullUrl: 'u',
      },
    };
    expect(evolveRequest(state, recorded(pr), pr)).toMatchObject({
      pendingProposalId: null,
      version: 1,
    });
  });

  it('closes on intake rejection and withdrawal, dropping a pending proposal', () => {
    revision = 0n;
    expect(
      fold(intake, {
        type: 'IntakeRejected',
        data: { requestId: R, rejectedBy: 'm', via: 'local', reason: 'dup' },
      }),
    ).toMatchObject({
      stage: 'rejected',
      status: 'closed',
      closedReason: 'dup',
    });
    revision = 0n;
    expect(
      fold(intake, propose(1, 'proposed', 'accepted'), {
        type: 'RequestWithdrawn',
        data: { requestId: R, withdrawnBy: 'x', reason: 'gone' },
      }),
    ).toMatchObject({
      stage: 'withdrawn',
      status: 'closed',
      pendingProposalId: null,
    });
  });

  it('refuses events that cannot follow the state', () => {
    revision = 0n;
    const state = fold(intake);
    expect(() => evolveRequest(state, recorded(intake), intake)).toThrow('already proposed');
    const orphan: RequestEvent = {
      type: 'RequestWithdrawn',
      data: { requestId: 'req-x', withdrawnBy: 'x', reason: 'r' },
    };
    expect(() => evolveRequest(undefined, recorded(orphan), orphan)).toThrow('never proposed');
  });

  it('survives the row round trip unchanged (so batch boundaries do not change the hash)', () => {
    revision = 0n;
    const state = fold(intake, propose(1, 'proposed', 'accepted'))!;
    const row = JSON.parse(JSON.stringify(toRequestRow(state))) as ReturnType<typeof toRequestRow>;
    expect(
      fromRequestRow({
        ...row,
        created_at: new Date(state.createdAt),
        version: String(state.version),
      }),
    ).toEqual(state);
    expect(requestDocument(state)).not.toHaveProperty('lastPosition');
  });
});

describe('request event parsing and summaries', () => {
  it('names the invalid fields of a malformed event', () => {
    const bad = recorded({
      ...intake,
      data: { ...intake.data, priority: 'urgent' as never, title: 3 as never },
    });
    expect(() => parseRequestEvent(bad)).toThrow(
      /RequestProposed has invalid data \(.*title.*priority/,
    );
    expect(() => parseRequestEvent({ ...bad, type: 'Unknown' })).toThrow('not a Request event');
  });

  it('writes one short line per event', () => {
    expect(summarize(intake)).toBe('Proposed "T" for docs (low)');
    const long = summarize({ ...intake, data: { ...intake.data, title: 'x'.repeat(500) } });
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
    const emoji = summarize({
      ...intake,
      data: { ...intake.data, title: `${'x'.repeat(188)}😀😀😀😀😀` },
    });
    expect(emoji.endsWith('…')).toBe(true);
    // No lone surrogate: the cut fell before the pair, not inside it.
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    // 'Proposed "' + 188 x: the first emoji would straddle the cut at 199 units.
    expect(emoji).toBe(`Proposed "${'x'.repeat(188)}…`);
  });
});
