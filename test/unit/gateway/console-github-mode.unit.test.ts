import { describe, expect, it } from 'vitest';
import { ALL_GRANTS } from '../../../services/access/grants.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { decide } from '../../../mcp-gateway/console/actions.js';
import type { ConsoleRequest } from '../../../mcp-gateway/console/http.js';
import {
  renderRequest,
  type GetRequestResult,
} from '../../../mcp-gateway/console/pages/requests.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';

/**
 * GitHub mode: approval is a merge. The request page links the pull request and offers no
 * decision; a decision posted anyway is refused before anything is read or appended.
 */
const identity = {
  caller: { actor: 'token:maintainer', grants: ALL_GRANTS },
  decider: 'token:maintainer',
  actor: 'token:maintainer',
  sessionId: 's1',
};
const request = { identity, csrf: 'csrf-token' } as unknown as ConsoleRequest;

const pending = {
  proposalId: 'req-2026-0001-p1',
  fromStage: 'proposed',
  toStage: 'accepted',
  proposedBy: 'token:agent',
  proposedAt: '2026-12-01T10:00:00.000Z',
  rationale: 'Measurable.',
  evidence: {},
  pullNumber: 7,
  pullUrl: 'https://github.com/acme/widgets/pull/7',
} as const;

const view: GetRequestResult = {
  request_id: 'req-2026-0001',
  as_of: null,
  source: 'read_model',
  request: {
    requestId: 'req-2026-0001',
    uri: 'cogitave://request/req-2026-0001',
    title: 'Export audit trails',
    problem: 'Auditors copy history by hand today.',
    product: 'core',
    requester: 'audit-team',
    priority: 'medium',
    acceptanceCriteria: [{ id: 'ac-1', text: 'An export of 10000 events takes under 5 s' }],
    links: [],
    stage: 'proposed',
    status: 'draft',
    resumeStage: null,
    pendingProposal: pending,
    evidence: {},
    intakeIssue: {
      repository: 'acme/widgets',
      number: 3,
      url: 'https://github.com/acme/widgets/issues/3',
    },
    proposedBy: 'token:agent',
    closedReason: null,
    createdAt: '2026-12-01T09:00:00.000Z',
    updatedAt: '2026-12-01T10:00:00.000Z',
    version: 1,
  },
  history: [],
  proposals: [{ ...pending, outcome: 'pending', decision: null }],
};

describe('the console in GitHub mode', () => {
  it('given a pending proposal with its pull request, when the page renders, then it links the pull request and offers no approve or reject form', () => {
    const page = renderRequest(request, view, undefined, { kind: 'github' }, undefined);
    expect(page).toContain('href="https://github.com/acme/widgets/pull/7"');
    expect(page).toContain('The console never approves in GitHub mode');
    expect(page).not.toContain('/approve"');
    expect(page).not.toContain('/reject"');
    expect(page).not.toContain('reject-intake');
    expect(page).toContain('href="https://github.com/acme/widgets/issues/3"');
  });

  it('given a proposal merged on GitHub, when the page renders, then it shows the decided proposal with its outcome, decider, evidence and pull request', () => {
    const merged: GetRequestResult = {
      ...view,
      request: { ...view.request, stage: 'accepted', status: 'active', pendingProposal: null },
      proposals: view.proposals.map((proposal) => ({
        ...proposal,
        evidence: { notes: 'Checked with the audit team.' },
        outcome: 'approved' as const,
        decision: {
          by: 'github:grace',
          via: 'github' as const,
          at: '2026-12-01T11:00:00.000Z',
          mergeCommitSha: '0123456789abcdef0123',
        },
      })),
    };
    const page = renderRequest(request, merged, undefined, { kind: 'github' }, undefined);
    expect(page).toContain('Decided proposals');
    expect(page).toMatch(/req-2026-0001-p1: proposed → accepted,\s*<strong>approved<\/strong>/);
    expect(page).toMatch(/approved by github:grace via\s+github/);
    expect(page).toContain('href="https://github.com/acme/widgets/pull/7"');
    expect(page).toContain('<code>0123456789ab</code>');
    expect(page).toContain('Checked with the audit team.');
    expect(page).toContain('No proposal is waiting for a decision.');
  });

  it('given local mode and a maintainer, when the page renders, then both decisions are forms carrying the CSRF token', () => {
    const page = renderRequest(
      request,
      view,
      undefined,
      { kind: 'local', mayDecide: true },
      undefined,
    );
    expect(page).toContain(
      'action="/console/requests/req-2026-0001/proposals/req-2026-0001-p1/approve"',
    );
    expect(page).toContain(
      'action="/console/requests/req-2026-0001/proposals/req-2026-0001-p1/reject"',
    );
    expect(page.match(/name="csrf" value="csrf-token"/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('given GitHub mode, when a decision is posted anyway, then it is refused before anything is read or appended', async () => {
    const untouched = new Proxy(
      {},
      {
        get: () => {
          throw new Error('nothing may be called');
        },
      },
    ) as GatewayServices;
    const refusal = await decide(
      {
        services: untouched,
        read: () => Promise.reject(new Error('nothing may be read')),
        approval: { kind: 'github', repository: 'acme/widgets' },
      },
      identity,
      'req-2026-0001',
      { kind: 'approve', proposalId: 'req-2026-0001-p1' },
      new AbortController().signal,
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CogitaveError);
    expect((refusal as CogitaveError).code).toBe('FAILED_PRECONDITION');
    expect((refusal as CogitaveError).message).toContain('merging its pull request');
  });

  it('given a login without the decide grant, when a decision is posted, then it is refused as a missing grant', async () => {
    const refusal = await decide(
      {
        services: {} as GatewayServices,
        read: () => Promise.reject(new Error('nothing may be read')),
        approval: { kind: 'local' },
      },
      { ...identity, caller: { actor: 'token:reader', grants: { ...ALL_GRANTS, decide: false } } },
      'req-2026-0001',
      { kind: 'approve', proposalId: 'req-2026-0001-p1' },
      new AbortController().signal,
    ).catch((error: unknown) => error);
    expect((refusal as CogitaveError).code).toBe('PERMISSION_DENIED');
    expect((refusal as CogitaveError).message).toContain('"decide"');
  });
});
