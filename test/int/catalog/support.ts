import { catalogProjection } from '../../../projections/catalog/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import type { CommandMetadata } from '../../../services/commands/metadata.js';
import { openTestBed, silentLogger, type TestBed } from '../projections/support/fixtures.js';

/** A throwaway database with the catalog projection running, for ingest-then-read tests. */
export interface CatalogBed {
  readonly bed: TestBed;
  readonly runner: ProjectionRunner;
  /** Waits until the catalog read model has applied the event at `position`. */
  caughtUp(position: string | null): Promise<void>;
  close(): Promise<void>;
}

export const openCatalogBed = async (label: string): Promise<CatalogBed> => {
  const bed = await openTestBed('postgres', label, [catalogProjection]);
  const runner = createProjectionRunner({
    database: bed.database,
    eventStore: bed.store,
    logger: silentLogger,
    projections: [catalogProjection],
    lagProbeIntervalMs: 0,
  });
  runner.start();
  return {
    bed,
    runner,
    caughtUp: async (position) => {
      if (position) {
        await runner.waitFor(
          'catalog',
          (s) => s.position !== null && s.position >= position,
          20_000,
        );
      }
    },
    close: async () => {
      await runner.stop();
      await bed.close();
    },
  };
};

/** Metadata of the nth ingest run of a test: distinct ids, times a minute apart. */
export const ingestRunMeta = (actor: string): (() => CommandMetadata) => {
  let run = 0;
  return () => {
    run += 1;
    return {
      commandId: `00000000-0000-4000-8000-${String(run).padStart(12, '0')}`,
      actor,
      at: new Date(Date.UTC(2026, 0, 5, 9, run)).toISOString(),
    };
  };
};
