import { z } from 'zod';
import { evidenceSchema } from '../../lifecycle/evidence.js';
import { intakeFormSchema } from '../../lifecycle/intake-form.js';
import { STAGES } from '../../lifecycle/stages.js';

/**
 * Input validation of the Request commands, run before anything is read or appended: a bad
 * input is an InvalidArgument naming each field and what it must be.
 */

export const requestIdSchema = z
  .string()
  .regex(/^req-\d{4}-\d{4,}$/, { error: 'must be a request id like "req-2026-0042"' });

export const proposalIdSchema = z.string().regex(/^req-\d{4}-\d{4,}-p[1-9]\d*$/, {
  error: 'must be a proposal id like "req-2026-0042-p1"',
});

const text = (max: number, what: string) =>
  z
    .string({ error: `must be a string: ${what}` })
    .trim()
    .min(1, { error: `must not be empty: ${what}` })
    .max(max, { error: `must be at most ${max} characters` });

const stageSchema = z.enum(STAGES, { error: `must be one of ${STAGES.join(', ')}` });

const expectedRevisionSchema = z.union(
  [z.enum(['any', 'no_stream', 'stream_exists']), z.bigint().nonnegative()],
  {
    error: 'must be "any", "no_stream", "stream_exists" or a non-negative bigint revision',
  },
);

export const intakeInputSchema = intakeFormSchema;

export const stageAdvanceInputSchema = z.strictObject({
  requestId: requestIdSchema,
  toStage: stageSchema,
  evidence: evidenceSchema,
  rationale: z
    .string({ error: 'must be a string' })
    .trim()
    .min(10, { error: 'needs at least 10 characters: why the request should move now' })
    .max(5000, { error: 'must be at most 5000 characters' }),
  expectedRevision: expectedRevisionSchema.optional(),
});

const repositorySchema = z.string().regex(/^[\w.-]+\/[\w.-]+$/, { error: 'must be "owner/name"' });

const positiveInt = z.number().int().positive({ error: 'must be a positive integer' });

export const intakeIssueInputSchema = z.strictObject({
  requestId: requestIdSchema,
  repository: repositorySchema,
  issueNumber: positiveInt,
  issueUrl: z.url({ protocol: /^https?$/ }),
});

export const proposalPullRequestInputSchema = z.strictObject({
  requestId: requestIdSchema,
  proposalId: proposalIdSchema,
  repository: repositorySchema,
  branch: text(250, 'the proposal branch'),
  pullNumber: positiveInt,
  pullUrl: z.url({ protocol: /^https?$/ }),
  headSha: z
    .string()
    .regex(/^[0-9a-f]{40}$/, { error: 'must be a 40-character lower-case hex commit sha' })
    .optional(),
});

const viaSchema = z.enum(['github', 'local'], { error: 'must be "github" or "local"' });

export const proposalDecisionInputSchema = z.strictObject({
  requestId: requestIdSchema,
  proposalId: proposalIdSchema,
  decidedBy: text(200, 'the GitHub login or local maintainer'),
  via: viaSchema,
  reason: text(2000, 'why').optional(),
  mergeCommitSha: z
    .string()
    .regex(/^[0-9a-f]{40}$/, { error: 'must be a 40-character hex commit sha' })
    .nullable()
    .optional(),
  mergeNotCounted: z
    .strictObject({
      pullNumber: z.int().positive(),
      mergedBy: text(200, 'the GitHub login that merged'),
      mergeCommitSha: z.string().nullable(),
      rule: z.enum(['own_proposal', 'not_maintainer']),
      principal: text(200, "the merger's principal"),
    })
    .optional(),
});

export const intakeDecisionInputSchema = z.strictObject({
  requestId: requestIdSchema,
  decidedBy: text(200, 'the GitHub login or local maintainer'),
  via: viaSchema,
  reason: text(2000, 'why the intake is rejected'),
});

export const maintainerWithdrawInputSchema = z.strictObject({
  requestId: requestIdSchema,
  decidedBy: text(200, 'the GitHub login or local maintainer'),
  via: viaSchema,
  reason: text(2000, 'why the request is withdrawn'),
});

export const withdrawInputSchema = z.strictObject({
  requestId: requestIdSchema,
  reason: text(2000, 'why the request is withdrawn'),
});
