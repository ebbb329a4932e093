import type { Evidence } from './evidence.js';
import {
  acceptanceCriteriaSchema,
  problemSchema,
  productSchema,
  requesterSchema,
  type IntakePriority,
} from './intake-form.js';
import { STAGES, type Stage } from './stages.js';

/**
 * The Definition of Done per stage: the checklist that must hold to LEAVE the stage forward.
 * `get_dod` serves this catalogue to agents, so each description says what to attach and
 * where (`evidence.testPlan`, …), and a failed check says what exactly is missing.
 *
 * Items are checked against the request's facts: the intake form (fixed at intake) and the
 * evidence accumulated from approved proposals, merged with the evidence of the proposal
 * being checked.
 */

export interface IntakeFacts {
  readonly title: string;
  readonly problem: string;
  readonly product: string;
  readonly requester: string;
  readonly acceptanceCriteria: readonly { readonly id: string; readonly text: string }[];
  readonly links: readonly { readonly url: string; readonly title?: string | undefined }[];
  readonly priority: IntakePriority;
}

export interface RequestFacts {
  readonly intake: IntakeFacts;
  readonly evidence: Evidence;
}

/** `{ met: false, detail }` names what is missing ("no evidence for ac-2, ac-3"). */
export type DodCheckResult =
  { readonly met: true } | { readonly met: false; readonly detail: string };

export interface DodItem {
  /** `<stage>.<slug>`, stable: agents and projections refer to items by id. */
  readonly id: string;
  readonly stage: Stage;
  readonly description: string;
  readonly check: (facts: RequestFacts) => DodCheckResult;
}

/** An unmet item as it appears in an error or a `get_dod` answer. */
export interface UnmetDodItem {
  readonly id: string;
  readonly description: string;
  readonly detail: string;
}

const MET: DodCheckResult = { met: true };
const unmet = (detail: string): DodCheckResult => ({ met: false, detail });

const firstIssue = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues[0]?.message ?? 'invalid';

// Intake facts cannot be edited after intake, so the proposed-stage items say how to recover.
const FIXED_AT_INTAKE =
  'Set at intake: if it fails, withdraw the request (propose stage "withdrawn" with advance_stage; a maintainer approves it) and submit a corrected intake.';

const proposed: readonly DodItem[] = [
  {
    id: 'proposed.problem-statement',
    stage: 'proposed',
    description: `The intake states the problem (field problem, at least 30 characters): who is affected and what goes wrong today. ${FIXED_AT_INTAKE}`,
    check: ({ intake }) => {
      const result = problemSchema.safeParse(intake.problem);
      return result.success ? MET : unmet(firstIssue(result));
    },
  },
  {
    id: 'proposed.requester',
    stage: 'proposed',
    description: `The intake names the requester (field requester): the person or team who needs this, as a GitHub login, e-mail or team name. ${FIXED_AT_INTAKE}`,
    check: ({ intake }) => {
      const result = requesterSchema.safeParse(intake.requester);
      return result.success ? MET : unmet(firstIssue(result));
    },
  },
  {
    id: 'proposed.product',
    stage: 'proposed',
    description: `The intake names the product (field product) the request changes, e.g. "mcp-gateway". ${FIXED_AT_INTAKE}`,
    check: ({ intake }) => {
      const result = productSchema.safeParse(intake.product);
      return result.success ? MET : unmet(firstIssue(result));
    },
  },
  {
    id: 'proposed.acceptance-criteria',
    stage: 'proposed',
    description: `The intake has measurable acceptance criteria (field acceptanceCriteria, ids ac-1, ac-2, …): at least one, each a checkable sentence of 4+ words, and vague words such as "fast" only with a threshold ("p95 under 300 ms"). ${FIXED_AT_INTAKE}`,
    check: ({ intake }) => {
      const result = acceptanceCriteriaSchema.safeParse(
        intake.acceptanceCriteria.map((criterion) => criterion.text),
      );
      return result.success ? MET : unmet(firstIssue(result));
    },
  },
];

const specLinkItem = (stage: Stage, why: string): DodItem => ({
  id: `${stage}.spec-link`,
  stage,
  description: `Attach evidence.specLink: the URL of the specification or ADR that defines the change (${why}).`,
  check: ({ evidence }) => (evidence.specLink ? MET : unmet('evidence.specLink is missing')),
});

// accepted → specified: "specified" means a spec exists, so leaving accepted needs its link.
const accepted: readonly DodItem[] = [
  specLinkItem('accepted', 'a draft is fine; it must exist before the request counts as specified'),
];

const specified: readonly DodItem[] = [
  specLinkItem('specified', 'still required: work starts from the spec'),
  {
    id: 'specified.test-plan',
    stage: 'specified',
    description:
      'Attach evidence.testPlan: how the change will be tested — which unit, integration or end-to-end tests show each acceptance criterion (ac-1, ac-2, …) holds.',
    check: ({ evidence }) => (evidence.testPlan ? MET : unmet('evidence.testPlan is missing')),
  },
  {
    id: 'specified.rollback-plan',
    stage: 'specified',
    description:
      'Attach evidence.rollbackPlan: how to undo the change if it misbehaves in production (revert, feature flag, data back-out), and who decides.',
    check: ({ evidence }) =>
      evidence.rollbackPlan ? MET : unmet('evidence.rollbackPlan is missing'),
  },
];

// in_progress → in_review: reviewers need something to review, and CI must have run on it
// (review before CI wastes reviewers; a check may still be pending, green is in_review's job).
const inProgress: readonly DodItem[] = [
  {
    id: 'in_progress.change-link',
    stage: 'in_progress',
    description:
      'Attach evidence.links with the URL of the change to review (the implementation pull request or branch).',
    check: ({ evidence }) =>
      evidence.links && evidence.links.length > 0 ? MET : unmet('evidence.links is empty'),
  },
  {
    id: 'in_progress.checks-reported',
    stage: 'in_progress',
    description:
      'Attach evidence.checks: the CI checks that ran on the change ({ name, conclusion, url }); a check may still be pending.',
    check: ({ evidence }) =>
      evidence.checks && evidence.checks.length > 0 ? MET : unmet('evidence.checks is empty'),
  },
];

const notGreen = (evidence: Evidence): DodCheckResult => {
  const checks = evidence.checks ?? [];
  if (checks.length === 0) return unmet('evidence.checks is empty');
  const bad = checks.filter((check) => check.conclusion !== 'success');
  return bad.length === 0
    ? MET
    : unmet(`not green: ${bad.map((check) => `${check.name} (${check.conclusion})`).join(', ')}`);
};

const inReview: readonly DodItem[] = [
  {
    id: 'in_review.checks-green',
    stage: 'in_review',
    description:
      'Attach evidence.checks from the latest CI run with every check concluded "success" (at least one; none "failure" or "pending"): fix or re-run failing checks first.',
    check: ({ evidence }) => notGreen(evidence),
  },
  {
    id: 'in_review.criteria-evidence',
    stage: 'in_review',
    description:
      'Attach evidence.criteria with an entry for every acceptance criterion, keyed by its id ({ "ac-1": "test ExportCsv passes: …" }): how it was shown to hold (test name, log excerpt, screenshot link).',
    check: ({ intake, evidence }) => {
      const missing = intake.acceptanceCriteria
        .map((criterion) => criterion.id)
        .filter((id) => !evidence.criteria?.[id]);
      return missing.length === 0 ? MET : unmet(`no evidence for ${missing.join(', ')}`);
    },
  },
];

// verifying → done: the released change was seen working, and nothing turned red since review.
const verifying: readonly DodItem[] = [
  {
    id: 'verifying.verification',
    stage: 'verifying',
    description:
      'Attach evidence.verification: how and where the released change was verified (environment, date, what was observed), e.g. "deployed to staging 2026-11-30; smoke test export-csv passed".',
    check: ({ evidence }) =>
      evidence.verification ? MET : unmet('evidence.verification is missing'),
  },
  {
    id: 'verifying.checks-green',
    stage: 'verifying',
    description:
      'Keep evidence.checks all "success": if the verifying proposal reports checks, every one must have passed (done means nothing is red).',
    check: ({ evidence }) => notGreen(evidence),
  },
];

/**
 * The catalogue. `deferred` has no items: resuming restores the stage the request left, and
 * that stage's own DoD still applies when the request leaves it. Terminal stages are never
 * left, so they have none either.
 */
export const DEFINITION_OF_DONE: Readonly<Record<Stage, readonly DodItem[]>> = {
  proposed,
  accepted,
  specified,
  in_progress: inProgress,
  in_review: inReview,
  verifying,
  done: [],
  deferred: [],
  rejected: [],
  withdrawn: [],
  superseded: [],
};

export const dodFor = (stage: Stage): readonly DodItem[] => DEFINITION_OF_DONE[stage];

/** The items of `stage` that the facts do not satisfy, in catalogue order. */
export const unmetDod = (stage: Stage, facts: RequestFacts): UnmetDodItem[] =>
  dodFor(stage).flatMap((item) => {
    const result = item.check(facts);
    return result.met
      ? []
      : [{ id: item.id, description: item.description, detail: result.detail }];
  });

/** The serialisable catalogue, as `get_dod` returns it. */
export const describeDod = (
  stage?: Stage,
): {
  readonly stage: Stage;
  readonly items: { readonly id: string; readonly description: string }[];
}[] =>
  (stage ? [stage] : STAGES).map((s) => ({
    stage: s,
    items: dodFor(s).map(({ id, description }) => ({ id, description })),
  }));
