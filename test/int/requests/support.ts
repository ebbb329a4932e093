import { randomUUID } from 'node:crypto';
import type { IntakeForm } from '../../../lifecycle/intake-form.js';
import { commandEventId } from '../../../services/commands/event-ids.js';
import { eventMetadata, type CommandMetadata } from '../../../services/commands/metadata.js';
import type { EventToAppend } from '../../../services/event-store/types.js';
import { formatRequestId, REQUEST_ID_ALLOCATED } from '../../../services/requests/request-ids.js';

/** Givens shared by the request handler specs on Postgres. */

export const form: IntakeForm = {
  title: 'Export the audit log as CSV',
  problem: 'Auditors cannot export the audit log, so they copy rows by hand every month.',
  product: 'cogitave-core',
  requester: 'carol',
  acceptanceCriteria: ['The export contains every audit event of the chosen month'],
  links: [],
  priority: 'medium',
};

/** Each test allocates in its own year, so per-year counters are exact within a test. */
export const meta = (year: number, actor = 'agent:alice'): CommandMetadata => ({
  commandId: randomUUID(),
  actor,
  at: `${year}-11-30T08:00:00.000Z`,
});

/**
 * The RequestIdAllocated events one append of `commands` takes from sequence `first` on, as
 * a maker writes them (what it leaves behind when it dies before completing them).
 */
export const allocatedEvents = (
  year: number,
  first: number,
  commands: readonly CommandMetadata[],
): EventToAppend[] =>
  commands.map((command, index) => ({
    id: commandEventId(command.commandId, 'allocate'),
    type: REQUEST_ID_ALLOCATED,
    data: {
      requestId: formatRequestId(year, first + index),
      year,
      sequence: first + index,
      commandId: command.commandId,
      payload: { intake: form, meta: command },
      batchFirst: first,
    },
    metadata: eventMetadata(command),
  }));
