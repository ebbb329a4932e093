import { z } from 'zod';
import type { EventMetadata } from '../event-store/types.js';
import { parseInput } from './inputs.js';

/**
 * Who, when and which attempt: every command carries it, so deciders stay pure. `commandId`
 * is a UUID chosen by the caller; event ids are derived from it, so a retried command (same
 * commandId) appends nothing new.
 */
export interface CommandMetadata {
  readonly commandId: string;
  readonly actor: string;
  /** ISO-8601 with offset. */
  readonly at: string;
  readonly correlationId?: string | undefined;
  readonly causationId?: string | undefined;
}

const text = (max: number, what: string) =>
  z
    .string({ error: `must be a string: ${what}` })
    .trim()
    .min(1, { error: `must not be empty: ${what}` })
    .max(max, { error: `must be at most ${max} characters` });

export const commandMetadataSchema = z.object({
  commandId: z.uuid({ error: 'must be a UUID chosen by the caller (reuse it when retrying)' }),
  actor: text(200, 'who issues the command'),
  at: z.iso.datetime({ offset: true, error: 'must be an ISO-8601 timestamp with offset' }),
  correlationId: text(200, 'the correlation id').optional(),
  causationId: text(200, 'the causing command or event id').optional(),
});

/** The command's metadata, checked: `what` names the command in the message. */
export const parseCommandMetadata = (meta: CommandMetadata, what: string): CommandMetadata =>
  parseInput(commandMetadataSchema, meta, `${what} metadata`);

/** Metadata every event of the command carries; a command without a chain starts its own. */
export const eventMetadata = (meta: CommandMetadata): EventMetadata => ({
  actor: meta.actor,
  correlationId: meta.correlationId ?? meta.commandId,
  causationId: meta.causationId ?? meta.commandId,
  at: meta.at,
});
