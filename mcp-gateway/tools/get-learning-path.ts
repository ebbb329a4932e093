import { z } from 'zod';
import { defineTool, READ_ONLY } from '../registry.js';

const output = z.object({
  target_uid: z.string(),
  results: z.array(
    z.object({
      uid: z.string(),
      label: z.string(),
      title: z.string(),
      duration_in_minutes: z.number().nullable(),
      reason: z.string(),
      uri: z.string(),
    }),
  ),
  total_duration_in_minutes: z.number(),
  skipped: z.array(z.string()),
});

/** The structured result (the console renders it). */
export type GetLearningPathOutput = z.infer<typeof output>;

export const getLearningPathTool = defineTool({
  name: 'get_learning_path',
  title: 'Learning path toward a target',
  description:
    'Prerequisite-ordered steps (units, modules, skills, docs) toward a target node: prerequisites first (prerequisiteOf edges), a module or learning path followed by its parts in order, a skill after what teaches it. Pass known_uids to skip what the learner already knows (with everything it covers). Returns the steps, their durations and the total; a cycle in the prerequisites is an error that names it.',
  input: z.strictObject({
    target_uid: z.string().min(1),
    known_uids: z.array(z.string()).max(1000).optional(),
  }),
  output,
  annotations: READ_ONLY,
  access: 'read',
  handler: async (args, { services, scope }) => {
    const path = await services.catalog.getLearningPath(scope, {
      targetUid: args.target_uid,
      ...(args.known_uids === undefined ? {} : { knownUids: args.known_uids }),
    });
    return {
      target_uid: path.targetUid,
      results: path.steps.map((step) => ({
        uid: step.uid,
        label: step.label,
        title: step.title,
        duration_in_minutes: step.durationInMinutes,
        reason: step.reason,
        uri: step.uri,
      })),
      total_duration_in_minutes: path.totalDurationInMinutes,
      skipped: [...path.skipped],
    };
  },
  render: (result) =>
    [
      `Learning path to ${result.target_uid} (${result.total_duration_in_minutes} min):`,
      ...result.results.map(
        (step, index) =>
          `${index + 1}. ${step.title} [${step.label} ${step.uid}]${step.duration_in_minutes === null ? '' : ` ${step.duration_in_minutes} min`} (${step.reason})`,
      ),
      ...(result.skipped.length > 0 ? [`Skipped (known): ${result.skipped.join(', ')}`] : []),
    ].join('\n'),
});
