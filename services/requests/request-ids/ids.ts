/**
 * Request ids `req-YYYY-NNNN` and the names of the allocator's streams and events. Names avoid
 * the `request-` prefix, so readers of request streams by prefix never see them.
 */

export const REQUEST_ID_ALLOCATED = 'RequestIdAllocated';
export const INTAKE_COMMAND_BOUND = 'IntakeCommandBound';

/** The allocator's bookkeeping facts: the only types its log may append. */
export const ALLOCATION_EVENT_TYPES: readonly string[] = [
  REQUEST_ID_ALLOCATED,
  INTAKE_COMMAND_BOUND,
];

export const requestIdCounterStreamId = (year: number): string => `counter-request-ids-${year}`;
export const intakeCommandStreamId = (commandId: string): string =>
  `intake-command-${commandId.toLowerCase()}`;

/** Sequence 1 → `req-2026-0001`; past 9999 the number simply grows (`req-2026-10000`). */
export const formatRequestId = (year: number, sequence: number): string =>
  `req-${year}-${String(sequence).padStart(4, '0')}`;

export const parseRequestId = (
  requestId: string,
): { readonly year: number; readonly sequence: number } | undefined => {
  const match = /^req-(\d{4})-(\d{4,})$/.exec(requestId);
  if (!match?.[1] || !match[2]) return undefined;
  const sequence = Number(match[2]);
  return sequence >= 1 && Number.isSafeInteger(sequence)
    ? { year: Number(match[1]), sequence }
    : undefined;
};

/** The year of an ISO timestamp, in UTC: the same instant gets the same year everywhere. */
export const requestYearOf = (at: string): number => new Date(at).getUTCFullYear();
