import { catalogProjection } from '../../../services/catalog/read-model/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../../../projections/runner.js';
import {
  runTool,
  type ToolCallContext,
  type ToolDefinition,
} from '../../../mcp-gateway/registry.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';
import { createCatalogReadService } from '../../../services/catalog/read-service.js';
import type { CommandMetadata } from '../../../services/commands/metadata.js';
import type { Queryable } from '../../../services/database/queryable.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { IGNORE_WRITES } from '../../support/read-your-writes.js';
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

/** A tool call context whose caller may read everything, with the catalog read service only. */
export const catalogToolContext = (db: Queryable): ToolCallContext => ({
  services: {
    catalog: createCatalogReadService({ db }),
    readYourWrites: IGNORE_WRITES,
  } as unknown as GatewayServices,
  caller: {
    actor: 'test',
    grants: { products: '*', types: '*', propose: false, writeNetworks: false },
  },
  signal: new AbortController().signal,
  progress: () => Promise.resolve(),
  now: () => new Date(),
  newId: () => 'id',
});

/** The coded error a tool call fails with; a call that succeeds or throws otherwise fails the test. */
export const toolFailure = async (
  tool: ToolDefinition,
  args: unknown,
  context: ToolCallContext,
): Promise<CogitaveError> => {
  const error = await runTool(tool, args, context).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof CogitaveError) return error;
  throw new Error(`${tool.name} ${JSON.stringify(args)} did not fail with a coded error`);
};
