import type { IntakeFacts, RequestFacts } from '../../../lifecycle/dod.js';
import { mergeEvidence, type Evidence } from '../../../lifecycle/evidence.js';
import type { ProposalRef } from '../../../lifecycle/machine.js';
import type { Stage } from '../../../lifecycle/stages.js';
import type { LifecycleView } from '../../../lifecycle/validate.js';

/** Shared givens for lifecycle and request specs: a valid intake and evidence per stage. */

export const INTAKE: IntakeFacts = {
  title: 'Export the audit log as CSV',
  problem: 'Auditors cannot export the audit log, so they copy rows by hand every month.',
  product: 'cogitave-core',
  requester: 'carol',
  acceptanceCriteria: [
    { id: 'ac-1', text: 'The export contains every audit event of the chosen month' },
    { id: 'ac-2', text: 'An export of 100000 events completes in under 30 seconds' },
  ],
  links: [],
  priority: 'medium',
};

/** Evidence that, on its own, satisfies the DoD of leaving each stage. */
export const EVIDENCE_TO_LEAVE: Readonly<Record<Stage, Evidence>> = {
  proposed: {},
  accepted: { specLink: 'https://example.org/adr/0042' },
  specified: {
    specLink: 'https://example.org/adr/0042',
    testPlan: 'Integration test per criterion: export-month, export-100k-under-30s.',
    rollbackPlan: 'Feature flag audit.export; turn it off and revert the PR.',
  },
  in_progress: {
    links: ['https://github.com/cogitave/core/pull/7'],
    checks: [{ name: 'ci/test', conclusion: 'pending' }],
  },
  in_review: {
    checks: [{ name: 'ci/test', conclusion: 'success' }],
    criteria: { 'ac-1': 'test export-month passes', 'ac-2': 'test export-100k: 12 s' },
  },
  verifying: {
    verification: 'Deployed to staging 2026-11-30; exported November, 4210 rows.',
    checks: [{ name: 'ci/test', conclusion: 'success' }],
  },
  done: {},
  deferred: {},
  rejected: {},
  withdrawn: {},
  superseded: {},
};

export const facts = (
  evidence: Evidence = {},
  intake: Partial<IntakeFacts> = {},
): RequestFacts => ({
  intake: { ...INTAKE, ...intake },
  evidence,
});

/** All evidence a request would have accumulated by the time it reaches `stage`. */
export const evidenceReaching = (path: readonly Stage[]): Evidence =>
  path.reduce<Evidence>((acc, stage) => mergeEvidence(acc, EVIDENCE_TO_LEAVE[stage]), {});

export const OWNER = 'agent:alice';

export const view = (stage: Stage, overrides: Partial<LifecycleView> = {}): LifecycleView => ({
  stage,
  facts: facts(),
  owners: [OWNER, INTAKE.requester],
  resumeStage: null,
  pendingProposal: null,
  ...overrides,
});

export const proposal = (
  toStage: Stage,
  evidence: Evidence = {},
  proposedBy = OWNER,
  proposalId = 'req-2026-0001-p1',
): ProposalRef => ({ proposalId, toStage, evidence, proposedBy });

/**
 * The stage graph for proposals as specified (DESIGN.md and the reasons in machine.ts),
 * written out by hand so a change to the machine has to change this too. Deferred is listed
 * for a request deferred from accepted.
 */
export const EXPECTED_PROPOSABLE: Readonly<Record<Stage, readonly Stage[]>> = {
  proposed: ['accepted', 'superseded', 'withdrawn'],
  accepted: ['specified', 'deferred', 'rejected', 'superseded', 'withdrawn'],
  specified: ['in_progress', 'deferred', 'rejected', 'superseded', 'withdrawn'],
  in_progress: ['in_review', 'specified', 'deferred', 'rejected', 'superseded', 'withdrawn'],
  in_review: ['verifying', 'in_progress', 'rejected', 'superseded', 'withdrawn'],
  verifying: ['done', 'in_progress', 'rejected', 'superseded', 'withdrawn'],
  deferred: ['accepted', 'rejected', 'superseded', 'withdrawn'],
  done: [],
  rejected: [],
  withdrawn: [],
  superseded: [],
};
