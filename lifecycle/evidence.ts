import { z } from 'zod';

/**
 * What a proposer attaches to a stage proposal. Evidence accumulates on the request as its
 * proposals are approved; the Definition of Done of a stage is checked against it (and the
 * intake form). Keys are camelCase like every stored document.
 */
export const checkConclusionSchema = z.enum(['success', 'failure', 'pending']);

export const evidenceSchema = z
  .object({
    /** Specification or ADR that defines the change. */
    specLink: z.url().optional(),
    testPlan: z.string().trim().min(1).max(10_000).optional(),
    rollbackPlan: z.string().trim().min(1).max(10_000).optional(),
    /** CI checks of the change, e.g. from the pull request. */
    checks: z
      .array(
        z.object({
          name: z.string().trim().min(1).max(200),
          conclusion: checkConclusionSchema,
          url: z.url().optional(),
        }),
      )
      .max(100)
      .optional(),
    /** Evidence per acceptance criterion, keyed by its id (`ac-1`, `ac-2`, …). */
    criteria: z
      .record(z.string().regex(/^ac-\d+$/), z.string().trim().min(1).max(2_000))
      .optional(),
    links: z.array(z.url()).max(50).optional(),
    notes: z.string().max(10_000).optional(),
    /**
     * How and where the released change was verified (environment, date, what was observed).
     * Its own field because `notes` accumulates from every stage and would satisfy anything.
     */
    verification: z.string().trim().min(1).max(10_000).optional(),
  })
  .strict();

export type Evidence = z.infer<typeof evidenceSchema>;

/**
 * Folds a newer proposal's evidence onto what a request has accumulated. Plain fields and
 * `checks` are replaced (the latest CI report is the truth: an old green run must not hide a
 * new red one), `criteria` merge per criterion id, `links` are a union in first-seen order.
 */
export const mergeEvidence = (older: Evidence, newer: Evidence): Evidence => {
  const merged: Evidence = { ...older, ...definedFields(newer) };
  if (older.criteria || newer.criteria) {
    merged.criteria = { ...older.criteria, ...newer.criteria };
  }
  if (older.links || newer.links) {
    merged.links = [...new Set([...(older.links ?? []), ...(newer.links ?? [])])];
  }
  return merged;
};

// An explicit `undefined` in the newer evidence must not erase an older value.
const definedFields = (evidence: Evidence): Evidence =>
  Object.fromEntries(
    Object.entries(evidence as Readonly<Record<string, unknown>>).filter(
      ([, value]) => value !== undefined,
    ),
  );
