import { describe, expect, it } from 'vitest';
import {
  formatRequestId,
  intakeCommandStreamId,
  parseRequestId,
  requestIdCounterStreamId,
  requestYearOf,
} from '../../../services/requests/request-ids.js';
import { commandEventId } from '../../../services/commands/event-ids.js';
import { requestIdSchema } from '../../../services/requests/inputs.js';

describe('request ids', () => {
  it('given a year and sequence, when formatted, then NNNN is zero-padded to four digits', () => {
    expect(formatRequestId(2026, 1)).toBe('req-2026-0001');
    expect(formatRequestId(2026, 9999)).toBe('req-2026-9999');
  });

  it('given a sequence past 9999, when formatted, then it grows to five digits and still parses and validates', () => {
    expect(formatRequestId(2026, 10000)).toBe('req-2026-10000');
    expect(parseRequestId('req-2026-10000')).toEqual({ year: 2026, sequence: 10000 });
    expect(requestIdSchema.safeParse('req-2026-10000').success).toBe(true);
  });

  it('given malformed ids, when parsed, then undefined', () => {
    for (const id of [
      'req-2026-001',
      'req-26-0001',
      'REQ-2026-0001',
      'req-2026-0000',
      'req-2026-0001-p1',
    ]) {
      expect(parseRequestId(id)).toBeUndefined();
    }
  });

  it('given a timestamp with an offset, when its year is taken, then it is the UTC year', () => {
    expect(requestYearOf('2027-01-01T00:30:00+01:00')).toBe(2026);
    expect(requestYearOf('2026-12-31T23:30:00-01:00')).toBe(2027);
  });

  it('given the allocation streams, when named, then they avoid the request- prefix of request streams', () => {
    expect(requestIdCounterStreamId(2026)).toBe('counter-request-ids-2026');
    expect(intakeCommandStreamId('A0B1C2D3-0000-4000-8000-000000000000')).toBe(
      'intake-command-a0b1c2d3-0000-4000-8000-000000000000',
    );
  });
});

describe('command event ids', () => {
  it('given the same command and slot, when derived twice (any letter case), then the id is the same UUID', () => {
    const commandId = '6c1e4b0a-8f7d-4e2a-9b3c-1d2e3f4a5b6c';
    expect(commandEventId(commandId, 0)).toBe(commandEventId(commandId.toUpperCase(), 0));
    expect(commandEventId(commandId, 0)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('given different slots or commands, when derived, then the ids differ', () => {
    const a = '6c1e4b0a-8f7d-4e2a-9b3c-1d2e3f4a5b6c';
    const b = '7c1e4b0a-8f7d-4e2a-9b3c-1d2e3f4a5b6c';
    const ids = [
      commandEventId(a, 0),
      commandEventId(a, 1),
      commandEventId(a, 'allocate'),
      commandEventId(b, 0),
    ];
    expect(new Set(ids).size).toBe(4);
  });
});
