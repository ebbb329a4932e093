import { describe, expect, it } from 'vitest';
import { formatRunPhases, runPhases } from '../../../bin/commands/run-time.js';

/** The time a one-shot command reports is its whole run, said phase by phase. */
describe('where a command’s time went', () => {
  it('splits the run from process start into start-up, database, work and close', () => {
    // Given marks in milliseconds since the process started, and the work's own phases
    const phases = runPhases({ loaded: 800, opened: 2300, worked: 5300, closed: 5400 }, [
      { name: 'read', seconds: 1.2 },
      { name: 'append', seconds: 1.5 },
    ]);
    // Then the phases add up to the whole run
    expect(phases.map((phase) => [phase.name, Number(phase.seconds.toFixed(2))])).toEqual([
      ['start-up', 0.8],
      ['database open', 1.5],
      ['read', 1.2],
      ['append', 1.5],
      ['other', 0.3],
      ['close', 0.1],
    ]);
    const total = phases.reduce((sum, phase) => sum + phase.seconds, 0);
    expect(total).toBeCloseTo(5.4, 5);
    // And the line leaves out what took no time
    expect(formatRunPhases(5.4, phases)).toBe(
      'time: 5.4 s = start-up 0.8 s + database open 1.5 s + read 1.2 s + append 1.5 s + other 0.3 s + close 0.1 s',
    );
    expect(
      formatRunPhases(1, [
        { name: 'read', seconds: 1 },
        { name: 'close', seconds: 0.01 },
      ]),
    ).toBe('time: 1.0 s = read 1.0 s');
  });
});
