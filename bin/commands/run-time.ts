/**
 * Where a one-shot command's time went, from process start (`performance.timeOrigin`) to the
 * database closed, so the time it reports is the time a person waited. Marks are
 * `performance.now()` readings: milliseconds since the process started.
 */
export interface RunMarks {
  /** The command's modules are loaded and its action starts. */
  readonly loaded: number;
  /** The database is open and migrated. */
  readonly opened: number;
  /** The work itself is done (its own phases are inside it). */
  readonly worked: number;
  /** The database is closed: the process only exits after this. */
  readonly closed: number;
}

export interface RunPhase {
  readonly name: string;
  readonly seconds: number;
}

/** Above this, the report says where the time went. */
export const PHASES_SHOWN_ABOVE_SECONDS = 2;

/** Start-up, database, then the work's own phases, then closing; in seconds. */
export const runPhases = (marks: RunMarks, work: readonly RunPhase[]): RunPhase[] => {
  const workSeconds = (marks.worked - marks.opened) / 1000;
  const named = work.reduce((sum, phase) => sum + phase.seconds, 0);
  return [
    { name: 'start-up', seconds: marks.loaded / 1000 },
    { name: 'database open', seconds: (marks.opened - marks.loaded) / 1000 },
    ...work,
    // Whatever the work did outside its named phases (settling the log, the report).
    { name: 'other', seconds: Math.max(0, workSeconds - named) },
    { name: 'close', seconds: (marks.closed - marks.worked) / 1000 },
  ];
};

export const formatRunPhases = (total: number, phases: readonly RunPhase[]): string =>
  `time: ${total.toFixed(1)} s = ${phases
    .filter((phase) => phase.seconds >= 0.05)
    .map((phase) => `${phase.name} ${phase.seconds.toFixed(1)} s`)
    .join(' + ')}`;
