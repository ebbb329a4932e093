import { mergeEvidence, type Evidence } from '../../lifecycle/evidence.js';
import type { Stage } from '../../lifecycle/stages.js';
import type { RecordedEvent } from '../event-store/types.js';
import type {
  AcceptanceCriterion,
  ApprovalChannel,
  Priority,
  RequestEvent,
  RequestLink,
  StageAdvanceProposed,
} from '../requests/events.js';
import { neutraliseMarkers, proposalMarker, requestMarker } from './markers.js';

/**
 * What the GitHub documents show of a request, folded from its stream. This is a view for
 * rendering (an issue body, `requests/<id>.md`, a PR body), not the aggregate's decision
 * state: it keeps the history and evidence a reader wants and ignores the rules.
 */
export interface ApprovedStage {
  readonly proposalId: string;
  readonly fromStage: Stage;
  readonly toStage: Stage;
  readonly approvedBy: string;
  readonly via: ApprovalChannel;
  readonly mergeCommitSha: string | null;
  readonly at: string;
}

export interface ProposalView {
  readonly data: StageAdvanceProposed['data'];
  readonly at: string;
  readonly revision: bigint;
  status: 'pending' | 'approved' | 'rejected';
  pullRequest?: { readonly number: number; readonly url: string; readonly branch: string };
}

export interface RequestView {
  readonly requestId: string;
  readonly title: string;
  readonly problem: string;
  readonly product: string;
  readonly requester: string;
  readonly priority: Priority;
  readonly acceptanceCriteria: readonly AcceptanceCriterion[];
  readonly links: readonly RequestLink[];
  readonly proposedBy: string;
  readonly proposedAt: string;
  stage: Stage;
  status: 'active' | 'intake-rejected' | 'withdrawn';
  intakeIssue?: { readonly number: number; readonly url: string; readonly repository: string };
  readonly history: ApprovedStage[];
  /** Evidence of approved proposals, merged as the lifecycle merges it (`mergeEvidence`). */
  evidence: Evidence;
  readonly proposals: Map<string, ProposalView>;
}

/**
 * Folds a request stream. `uptoRevision` stops after that event (inclusive), to render the
 * request as it stood when a proposal was made. Undefined when the stream has no intake.
 */
export const foldRequestView = (
  events: readonly RecordedEvent[],
  uptoRevision?: bigint,
): RequestView | undefined => {
  let view: RequestView | undefined;
  for (const recorded of events) {
    if (uptoRevision !== undefined && recorded.revision > uptoRevision) break;
    const event = { type: recorded.type, data: recorded.data } as RequestEvent;
    if (event.type === 'RequestProposed') {
      view = {
        ...event.data,
        proposedAt: recorded.metadata.at,
        stage: 'proposed',
        status: 'active',
        history: [],
        evidence: {},
        proposals: new Map(),
      };
      continue;
    }
    if (!view) continue;
    switch (event.type) {
      case 'IntakeIssueOpened':
        view.intakeIssue = {
          number: event.data.issueNumber,
          url: event.data.issueUrl,
          repository: event.data.repository,
        };
        break;
      case 'IntakeRejected':
        view.status = 'intake-rejected';
        view.stage = 'rejected';
        break;
      case 'StageAdvanceProposed':
        view.proposals.set(event.data.proposalId, {
          data: event.data,
          at: recorded.metadata.at,
          revision: recorded.revision,
          status: 'pending',
        });
        break;
      case 'ProposalPullRequestOpened': {
        const proposal = view.proposals.get(event.data.proposalId);
        if (proposal) {
          proposal.pullRequest = {
            number: event.data.pullNumber,
            url: event.data.pullUrl,
            branch: event.data.branch,
          };
        }
        break;
      }
      case 'StageAdvanceApproved': {
        const proposal = view.proposals.get(event.data.proposalId);
        if (proposal) {
          proposal.status = 'approved';
          view.evidence = mergeEvidence(view.evidence, proposal.data.evidence);
          view.history.push({
            proposalId: event.data.proposalId,
            fromStage: proposal.data.fromStage,
            toStage: proposal.data.toStage,
            approvedBy: event.data.approvedBy,
            via: event.data.via,
            mergeCommitSha: event.data.mergeCommitSha,
            at: recorded.metadata.at,
          });
        }
        break;
      }
      case 'StageAdvanced':
        view.stage = event.data.toStage;
        break;
      case 'StageAdvanceRejected': {
        const proposal = view.proposals.get(event.data.proposalId);
        if (proposal) proposal.status = 'rejected';
        break;
      }
      case 'RequestWithdrawn':
        view.status = 'withdrawn';
        view.stage = 'withdrawn';
        break;
    }
  }
  return view;
};

// ---------------------------------------------------------------------------------------------
// Markdown

/** User text as a Markdown block: markers neutralised, never empty. */
const text = (value: string | undefined): string => {
  const trimmed = neutraliseMarkers(value ?? '').trim();
  return trimmed === '' ? '_(none)_' : trimmed;
};

/** One line of user text (table cells, list items): no newlines, no pipes. */
const inline = (value: string): string =>
  neutraliseMarkers(value)
    .replace(/\s*\n\s*/g, ' ')
    .replaceAll('|', '\\|')
    .trim();

/** A YAML scalar: JSON strings are valid YAML double-quoted scalars. */
const yaml = (value: string | number): string =>
  typeof value === 'number' || /^[A-Za-z0-9_.-]+$/.test(value)
    ? String(value)
    : JSON.stringify(value);

const linkLine = (link: RequestLink): string =>
  `- ${link.title ? `[${inline(link.title)}](${link.url})` : `<${link.url}>`}`;

const evidenceLines = (evidence: Evidence): string[] => {
  const lines: string[] = [];
  if (evidence.specLink) lines.push(`- **Specification / ADR:** <${evidence.specLink}>`);
  if (evidence.testPlan) lines.push(`- **Test plan:** ${inline(evidence.testPlan)}`);
  if (evidence.rollbackPlan) lines.push(`- **Rollback plan:** ${inline(evidence.rollbackPlan)}`);
  for (const check of evidence.checks ?? []) {
    const name = check.url ? `[${inline(check.name)}](${check.url})` : inline(check.name);
    lines.push(`- **Check** ${name}: ${check.conclusion}`);
  }
  for (const link of evidence.links ?? []) lines.push(`- <${link}>`);
  if (evidence.verification) lines.push(`- **Verification:** ${inline(evidence.verification)}`);
  if (evidence.notes) lines.push(`- **Notes:** ${inline(evidence.notes)}`);
  return lines;
};

/** A short human summary of evidence, e.g. for `cogitave proposals list`. */
export const summariseEvidence = (evidence: Evidence, criteriaCount?: number): string => {
  const parts: string[] = [];
  if (evidence.specLink) parts.push('spec');
  if (evidence.testPlan) parts.push('test plan');
  if (evidence.rollbackPlan) parts.push('rollback plan');
  if (evidence.checks?.length) {
    const passed = evidence.checks.filter((check) => check.conclusion === 'success').length;
    parts.push(`checks ${passed}/${evidence.checks.length} green`);
  }
  const criteria = Object.keys(evidence.criteria ?? {}).length;
  if (criteria > 0) {
    parts.push(`criteria ${criteria}${criteriaCount === undefined ? '' : `/${criteriaCount}`}`);
  }
  if (evidence.links?.length) parts.push(`${evidence.links.length} link(s)`);
  if (evidence.verification) parts.push('verification');
  if (evidence.notes) parts.push('notes');
  return parts.length === 0 ? 'none' : parts.join(', ');
};

export const intakeIssueTitle = (view: Pick<RequestView, 'requestId' | 'title'>): string =>
  `[${view.requestId}] ${inline(view.title)}`.slice(0, 256);

export const renderIntakeIssueBody = (view: RequestView): string =>
  [
    requestMarker(view.requestId),
    `> **${view.requestId}** · product \`${inline(view.product)}\` · priority **${view.priority}** · requested by **${inline(view.requester)}** · proposed by \`${inline(view.proposedBy)}\``,
    '>',
    '> Intake proposed through Cogitave. Stage changes arrive as draft pull requests that reference this issue; closing it as _not planned_ rejects the intake.',
    '',
    '## Problem',
    '',
    text(view.problem),
    '',
    '## Acceptance criteria',
    '',
    ...view.acceptanceCriteria.map(
      (criterion) => `- [ ] **${criterion.id}** ${inline(criterion.text)}`,
    ),
    ...(view.links.length > 0 ? ['', '## Links', '', ...view.links.map(linkLine)] : []),
    '',
  ].join('\n');

/**
 * `requests/<id>.md` as it reads once the proposal is merged: front matter, the intake, every
 * acceptance criterion with its evidence, the approved history and the change proposed.
 */
export const renderRequestFile = (
  view: RequestView,
  proposal: StageAdvanceProposed['data'],
): string => {
  const evidence = mergeEvidence(view.evidence, proposal.evidence);
  const fromProposal = new Set(Object.keys(proposal.evidence.criteria ?? {}));
  const criteriaRows = view.acceptanceCriteria.map((criterion) => {
    const given = evidence.criteria?.[criterion.id];
    const mark =
      given === undefined
        ? '—'
        : `${inline(given)}${fromProposal.has(criterion.id) ? ' _(this proposal)_' : ''}`;
    return `| ${criterion.id} | ${inline(criterion.text)} | ${mark} |`;
  });
  const history = [
    `| proposed | — | — | intake by \`${inline(view.proposedBy)}\` | ${view.proposedAt} |`,
    ...view.history.map(
      (step) =>
        `| ${step.toStage} | ${inline(step.approvedBy)} | ${step.via}${step.mergeCommitSha ? ` (${step.mergeCommitSha.slice(0, 12)})` : ''} | ${step.proposalId} | ${step.at} |`,
    ),
  ];
  const otherEvidence = evidenceLines({ ...evidence, criteria: undefined });
  return [
    '---',
    `id: ${yaml(view.requestId)}`,
    `title: ${yaml(view.title)}`,
    `stage: ${proposal.toStage}`,
    `product: ${yaml(view.product)}`,
    `priority: ${view.priority}`,
    `requester: ${yaml(view.requester)}`,
    `proposal: ${yaml(proposal.proposalId)}`,
    ...(view.intakeIssue ? [`intake_issue: ${view.intakeIssue.number}`] : []),
    '---',
    '',
    `# ${inline(view.title)}`,
    '',
    `**${view.requestId}** is at stage **${proposal.toStage}** once this change is approved (from \`${proposal.fromStage}\`).`,
    '',
    '## Problem',
    '',
    text(view.problem),
    '',
    '## Acceptance criteria',
    '',
    '| id | criterion | evidence |',
    '| --- | --- | --- |',
    ...criteriaRows,
    '',
    '## Evidence',
    '',
    ...(otherEvidence.length > 0 ? otherEvidence : ['_(none yet)_']),
    ...(view.links.length > 0 ? ['', '## Links', '', ...view.links.map(linkLine)] : []),
    '',
    `## Proposed: ${proposal.fromStage} → ${proposal.toStage}`,
    '',
    `Proposal \`${proposal.proposalId}\` by \`${inline(proposal.proposedBy)}\`.`,
    '',
    text(proposal.rationale),
    '',
    '## History of approved stages',
    '',
    '| stage | approved by | via | proposal | at |',
    '| --- | --- | --- | --- | --- |',
    ...history,
    '',
  ].join('\n');
};

export const proposalPullTitle = (
  view: RequestView,
  proposal: StageAdvanceProposed['data'],
): string =>
  `[${view.requestId}] ${proposal.fromStage} → ${proposal.toStage}: ${inline(view.title)}`.slice(
    0,
    256,
  );

export const renderProposalPullBody = (
  view: RequestView,
  proposal: StageAdvanceProposed['data'],
  intakeIssueNumber: number | undefined,
): string => {
  const evidence = evidenceLines(proposal.evidence);
  const criteria = Object.entries(proposal.evidence.criteria ?? {}).map(
    ([id, given]) => `- **${id}**: ${inline(given)}`,
  );
  return [
    proposalMarker(proposal.proposalId),
    ...(intakeIssueNumber === undefined ? [] : [`Refs #${intakeIssueNumber}`, '']),
    `**${view.requestId}**: \`${proposal.fromStage}\` → \`${proposal.toStage}\`, proposed by \`${inline(proposal.proposedBy)}\`.`,
    '',
    'Merging this pull request approves the stage change (the merger must not be the proposer); closing it without merging rejects it. The change is the request file at the new stage.',
    '',
    '### Rationale',
    '',
    text(proposal.rationale),
    '',
    '### Evidence',
    '',
    ...(evidence.length + criteria.length > 0 ? [...evidence, ...criteria] : ['_(none)_']),
    '',
  ].join('\n');
};
