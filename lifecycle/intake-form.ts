import { z } from 'zod';

/**
 * The intake form (`request_intake`), as the Request decider receives it (camelCase; the MCP
 * tool maps its snake_case arguments onto it). Every message says what to change, because the
 * reader is usually an agent that will retry with a corrected form.
 *
 * Acceptance criteria must be measurable, and a schema cannot judge meaning, so the rule is a
 * deliberately simple, predictable one (documented here and in each message):
 * - a criterion is a sentence: 15–500 characters and at least 4 words;
 * - a vague quality word ("fast", "easy", "better", …) needs a number beside it: the threshold
 *   that makes it checkable ("p95 latency under 300 ms", "setup takes at most 3 steps").
 * Criteria without vague words pass without a number ("the export contains every audit event"):
 * observable behaviour is measurable too, and demanding a digit would invite padding.
 */

export const PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type IntakePriority = (typeof PRIORITIES)[number];
export const DEFAULT_PRIORITY: IntakePriority = 'medium';

/** Words that name a quality without a way to check it; each needs a threshold beside it. */
export const VAGUE_TERMS: readonly string[] = [
  'fast',
  'faster',
  'quick',
  'quickly',
  'slow',
  'easy',
  'easier',
  'easily',
  'simple',
  'simpler',
  'better',
  'improved',
  'user-friendly',
  'intuitive',
  'nice',
  'robust',
  'scalable',
  'seamless',
  'seamlessly',
  'efficient',
  'performant',
  'responsive',
  'reliable',
  'smooth',
  'optimal',
  'good',
  'modern',
  'clean',
];

const MIN_CRITERION_WORDS = 4;

const vagueTermsIn = (text: string): string[] => {
  const words = new Set(text.toLowerCase().match(/[a-z]+(?:-[a-z]+)*/g) ?? []);
  return VAGUE_TERMS.filter((term) => words.has(term));
};

export const titleSchema = z
  .string({ error: 'title must be a string' })
  .trim()
  .min(8, {
    error:
      'title needs at least 8 characters: a short summary such as "Export the audit log as CSV"',
  })
  .max(140, { error: 'title must be at most 140 characters: move details into problem' });

export const problemSchema = z
  .string({ error: 'problem must be a string' })
  .trim()
  .min(30, {
    error:
      'problem needs at least 30 characters: say who is affected and what goes wrong today, e.g. "Auditors cannot export the audit log, so they copy rows by hand each month"',
  })
  .max(5000, { error: 'problem must be at most 5000 characters: link longer material in links' });

export const productSchema = z
  .string({ error: 'product must be a string' })
  .trim()
  .min(2, {
    error: 'product must name the product or service the request changes, e.g. "mcp-gateway"',
  })
  .max(100, { error: 'product must be at most 100 characters' });

export const requesterSchema = z
  .string({ error: 'requester must be a string' })
  .trim()
  .min(2, { error: 'requester must name who needs this: a GitHub login, an e-mail or a team' })
  .max(200, { error: 'requester must be at most 200 characters' });

export const acceptanceCriterionSchema = z
  .string({ error: 'each acceptance criterion must be a string' })
  .trim()
  .min(15, {
    error:
      'an acceptance criterion needs at least 15 characters: one checkable sentence, e.g. "GET /requests/{id} returns 404 for an unknown id"',
  })
  .max(500, { error: 'an acceptance criterion must be at most 500 characters: split it in two' })
  .superRefine((text, ctx) => {
    if (text.split(/\s+/).length < MIN_CRITERION_WORDS) {
      ctx.addIssue({
        code: 'custom',
        message: `"${text}" is not a sentence: write at least ${MIN_CRITERION_WORDS} words saying what can be observed when it holds`,
      });
      return;
    }
    const vague = vagueTermsIn(text);
    if (vague.length > 0 && !/\d/.test(text)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${text}" uses ${vague.map((term) => `"${term}"`).join(', ')} without a threshold: add the number that makes it checkable, e.g. "p95 latency under 300 ms at 50 requests/s" or "done in at most 3 steps"`,
      });
    }
  });

export const acceptanceCriteriaSchema = z
  .array(acceptanceCriterionSchema, {
    error: 'acceptanceCriteria must be a list of sentences (strings)',
  })
  .min(1, {
    error:
      'acceptanceCriteria needs at least one measurable criterion: how will everyone know the request is done?',
  })
  .max(20, { error: 'acceptanceCriteria takes at most 20 criteria: split the request' })
  .superRefine((criteria, ctx) => {
    const seen = new Map<string, number>();
    criteria.forEach((text, index) => {
      const key = text.trim().toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `repeats criterion ${first + 1} (ac-${first + 1}): remove the duplicate`,
        });
      } else seen.set(key, index);
    });
  });

export const intakeLinkSchema = z.strictObject(
  {
    url: z.url({
      protocol: /^https?$/,
      error: 'url must be an absolute http(s) URL, e.g. "https://github.com/org/repo/issues/1"',
    }),
    title: z
      .string()
      .trim()
      .min(1)
      .max(200, { error: 'link title must be at most 200 characters' })
      .optional(),
  },
  { error: 'each link is an object { url, title? }' },
);

export const intakeFormSchema = z.strictObject(
  {
    title: titleSchema,
    problem: problemSchema,
    product: productSchema,
    requester: requesterSchema,
    acceptanceCriteria: acceptanceCriteriaSchema,
    links: z
      .array(intakeLinkSchema, { error: 'links must be a list of { url, title? }' })
      .max(20, { error: 'links takes at most 20 links' })
      .default([]),
    priority: z
      .enum(PRIORITIES, {
        error: `priority must be one of ${PRIORITIES.join(', ')} (default ${DEFAULT_PRIORITY})`,
      })
      .default(DEFAULT_PRIORITY),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field(s) ${issue.keys.join(', ')}: the intake form takes title, problem, product, requester, acceptanceCriteria, links, priority`
        : 'the intake form must be an object { title, problem, product, requester, acceptanceCriteria, links?, priority? }',
  },
);

/** What the form holds after validation: trimmed, defaults applied. */
export type IntakeForm = z.output<typeof intakeFormSchema>;

export interface FormIssue {
  /** Dotted path of the field, e.g. `acceptanceCriteria.1`; empty for the whole form. */
  readonly path: string;
  readonly message: string;
}

export type IntakeFormResult =
  | { readonly success: true; readonly data: IntakeForm }
  | { readonly success: false; readonly issues: readonly FormIssue[]; readonly message: string };

export const formIssues = (error: z.ZodError): FormIssue[] =>
  error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));

/** One line per problem, each naming its field: what a tool error shows the agent. */
export const describeFormIssues = (issues: readonly FormIssue[]): string =>
  issues
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');

export const parseIntakeForm = (input: unknown): IntakeFormResult => {
  const parsed = intakeFormSchema.safeParse(input);
  if (parsed.success) return { success: true, data: parsed.data };
  const issues = formIssues(parsed.error);
  return { success: false, issues, message: describeFormIssues(issues) };
};
