import { mergeEvidence, type Evidence } from '../../lifecycle/evidence.js';
import type { RequestLink } from '../requests/events.js';
import { foldRequestStream, type ProposalRecord, type RequestRecord } from '../requests/fold.js';
import { neutraliseMarkers, proposalMarker, requestMarker } from './markers.js';

/**
 * The GitHub documents (an issue body, `requests/<id>.md`, a PR body) render the request's
 * record: the one fold of its events (services/requests/fold.ts) that the decider and the
 * read model share.
 */

/** What a document shows of one proposal (a stored proposal, or the event proposing it). */
export type ProposalFields = Pick<
  ProposalRecord,
  'proposalId' | 'fromStage' | 'toStage' | 'evidence' | 'rationale' | 'proposedBy'
>;

export { foldRequestStream };

/**
 * Closed by an intake rejection or a withdrawal: GitHub opens nothing more for it (a request
 * that reached a terminal stage by an approved proposal is not abandoned).
 */
export const isAbandoned = (record: RequestRecord): boolean => record.closedReason !== null;

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

export const intakeIssueTitle = (view: Pick<RequestRecord, 'requestId' | 'title'>): string =>
  `[${view.requestId}] ${inline(view.title)}`.slice(0, 256);

export const renderIntakeIssueBody = (view: RequestRecord): string =>
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
export const renderRequestFile = (view: RequestRecord, proposal: ProposalFields): string => {
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
    `| proposed | — | — | intake by \`${inline(view.proposedBy)}\` | ${view.createdAt} |`,
    ...view.proposals.flatMap(({ outcome, decision, toStage, proposalId }) =>
      outcome === 'approved' && decision
        ? [
            `| ${toStage} | ${inline(decision.by)} | ${decision.via}${decision.mergeCommitSha ? ` (${decision.mergeCommitSha.slice(0, 12)})` : ''} | ${proposalId} | ${decision.at} |`,
          ]
        : [],
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

export const proposalPullTitle = (view: RequestRecord, proposal: ProposalFields): string =>
  `[${view.requestId}] ${proposal.fromStage} → ${proposal.toStage}: ${inline(view.title)}`.slice(
    0,
    256,
  );

export const renderProposalPullBody = (
  view: RequestRecord,
  proposal: ProposalFields,
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
