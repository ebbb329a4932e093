import type { Logger } from './logger.js';

/**
 * The activity log: one `info` line per thing an operator wants to see happen — a proposal, a
 * decision, a refused call, a GitHub delivery, a catalog ingest — with stable field names
 * (docs/activity-log.md). Every line carries `activity` (its kind); the other fields are the
 * kind's. Reads never log here: the volume stays that of writes and refusals.
 */
export type ActivityKind = 'proposal' | 'decision' | 'refused' | 'webhook' | 'ingest';

/** A field's value: lines are flat so that log queries filter on them directly. */
export type ActivityValue = string | number | boolean | null;

export interface ActivityLine {
  readonly activity: ActivityKind;
  /** The line's text for a person: what happened, in a few words. */
  readonly msg: string;
  readonly fields: Readonly<Record<string, ActivityValue | undefined>>;
}

/**
 * The token's configured name when the actor is a token (`token:<name>`): the name an
 * operator gave it, never the token or its hash, which no line carries.
 */
export const tokenNameOf = (actor: string | undefined): string | undefined =>
  actor?.startsWith('token:') === true ? actor.slice('token:'.length) : undefined;

/** Writes one activity line at `info`; fields left undefined are left out. */
export const logActivity = (logger: Logger, line: ActivityLine): void => {
  const fields: Record<string, ActivityValue> = { activity: line.activity };
  for (const [name, value] of Object.entries(line.fields)) {
    if (value !== undefined) fields[name] = value;
  }
  logger.info(fields, line.msg);
};
