/** The stages of a request, in their usual order, then the parking and terminal ones. */
export const FORWARD_STAGES = [
  'proposed',
  'accepted',
  'specified',
  'in_progress',
  'in_review',
  'verifying',
  'done',
] as const;

export const STAGES = [
  ...FORWARD_STAGES,
  'deferred',
  'rejected',
  'withdrawn',
  'superseded',
] as const;

export type Stage = (typeof STAGES)[number];

/** No transition leaves these. */
export const TERMINAL_STAGES: readonly Stage[] = ['done', 'rejected', 'withdrawn', 'superseded'];

export const isStage = (value: unknown): value is Stage =>
  typeof value === 'string' && (STAGES as readonly string[]).includes(value);
