import { z } from 'zod';

/**
 * The parts of GitHub's webhook payloads the receiver reads. Only the fields we read;
 * everything else in the payload is left alone.
 */
const userSchema = z.object({ login: z.string().min(1) });
const repositorySchema = z.object({ full_name: z.string(), default_branch: z.string().optional() });

export const pullRequestClosedSchema = z.object({
  action: z.enum(['closed', 'reopened']),
  repository: repositorySchema,
  sender: userSchema,
  pull_request: z.object({
    number: z.number(),
    merged: z.boolean().nullable().optional(),
    merged_by: userSchema.nullable().optional(),
    merge_commit_sha: z.string().nullable().optional(),
    head: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }).nullable() }),
    base: z.object({ ref: z.string() }),
  }),
});
export type PullRequestPayload = z.infer<typeof pullRequestClosedSchema>;

export const issueClosedSchema = z.object({
  action: z.literal('closed'),
  repository: repositorySchema,
  sender: userSchema,
  issue: z.object({
    number: z.number(),
    body: z.string().nullable().optional(),
    state_reason: z.string().nullable().optional(),
    labels: z.array(z.object({ name: z.string() })).optional(),
  }),
});

export const deleteSchema = z.object({
  ref: z.string(),
  ref_type: z.string(),
  repository: repositorySchema,
  sender: userSchema,
});

export const pushSchema = z.object({
  ref: z.string(),
  before: z.string().optional(),
  after: z.string(),
  created: z.boolean().optional(),
  deleted: z.boolean().optional(),
  forced: z.boolean().optional(),
  repository: repositorySchema,
  // Who pushed, as git names them; `sender` is the GitHub account.
  pusher: z.object({ name: z.string() }).optional(),
  sender: userSchema,
  commits: z
    .array(
      z.object({
        added: z.array(z.string()).optional(),
        modified: z.array(z.string()).optional(),
        removed: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});
export type PushPayload = z.infer<typeof pushSchema>;
