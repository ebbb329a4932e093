import { randomUUID } from 'node:crypto';
import { createGatewayServices } from '../../../bin/gateway-services.js';
import {
  runTool,
  type Caller,
  type ToolCallContext,
  type ToolDefinition,
} from '../../../mcp-gateway/registry.js';
import type { GatewayServices } from '../../../mcp-gateway/services.js';
import { REQUESTS_PROJECTION } from '../../../services/requests/read-model/projection.js';
import { encodePosition } from '../../../services/event-store/position.js';
import { createApp, type App } from '../../../bin/app.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * The gateway's services as `serve` builds them (the real composition root, local approval
 * mode: no GitHub), on a throwaway server Postgres, with the read models running. Tools are
 * driven through their definitions exactly as the MCP server and the REST surface do.
 */
export interface GatewayBed {
  readonly app: App;
  readonly services: GatewayServices;
  context(caller?: Caller): Required<ToolCallContext>;
  /** Parses the arguments with the tool's input, runs it, parses the result with its output. */
  call(tool: ToolDefinition, args: unknown, caller?: Caller): Promise<Record<string, unknown>>;
  /** Every event in the store, oldest first (SQL: readAll lags transactions in flight). */
  events(): Promise<{ streamId: string; type: string }[]>;
  /** Waits until the requests read model has applied everything appended so far. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

export const AGENT: Caller = {
  actor: 'agent:tester',
  grants: { products: '*', types: '*', propose: true, writeNetworks: true },
};

export const MAINTAINER = 'maintainer:ana';

export const openGatewayBed = async (
  label: string,
  // Off: the read models stay behind until the test starts them (`app.projections.start()`).
  { startProjections = true }: { readonly startProjections?: boolean } = {},
): Promise<GatewayBed> => {
  const throwaway: ThrowawayDatabase = await createThrowawayDatabase(label);
  const logger = createLogger('silent');
  const app = await createApp(
    loadConfig({ DATABASE_URL: throwaway.url, COGITAVE_DB_POOL_SIZE: '8' }),
    logger,
  );
  if (startProjections) app.projections.start();
  const composed = await createGatewayServices(app);
  const { services } = composed;

  const context = (caller: Caller = AGENT): Required<ToolCallContext> => ({
    services,
    caller,
    signal: new AbortController().signal,
    progress: () => Promise.resolve(),
    now: () => new Date(),
    newId: () => randomUUID(),
  });

  const events = async () => {
    const { rows } = await app.database.pool.query<{ stream_id: string; event_type: string }>(
      'SELECT stream_id, event_type FROM event_store.events ORDER BY transaction_id, position',
    );
    return rows.map((row) => ({ streamId: row.stream_id, type: row.event_type }));
  };

  // SQL, not readAll: readAll hides transactions younger than the oldest one still open (the
  // projection's own batch), which would make this return before the last append is applied.
  const caughtUp = async (): Promise<void> => {
    const { rows } = await app.database.pool.query<{ transaction_id: string; position: string }>(
      `SELECT transaction_id::text AS transaction_id, position::text AS position
         FROM event_store.events WHERE stream_id LIKE 'request-%'
        ORDER BY transaction_id DESC, position DESC LIMIT 1`,
    );
    const last = rows[0];
    if (!last) return;
    const position = encodePosition(BigInt(last.transaction_id), BigInt(last.position));
    await app.projections.waitFor(
      REQUESTS_PROJECTION,
      (status) => status.position !== null && status.position >= position,
      20_000,
    );
  };

  return {
    app,
    services,
    context,
    call: async (tool, args, caller) => {
      return runTool(tool, args, context(caller));
    },
    events,
    caughtUp,
    close: async () => {
      await composed.close();
      await app.close();
      await throwaway.drop();
    },
  };
};

/** A well-formed intake, as request_intake takes it. */
export const intakeArgs = (title = 'Export the audit log as CSV') => ({
  title,
  problem: 'Auditors cannot export the audit log, so they copy rows by hand every month.',
  product: 'cogitave-core',
  requester: 'carol',
  acceptance_criteria: [
    'The export contains every audit event of the chosen month',
    'The CSV opens in a spreadsheet with one row per event',
  ],
});

/** Approves a pending proposal the way the local approval CLI does. */
export const approveLocally = async (
  services: GatewayServices,
  requestId: string,
  proposalId: string,
): Promise<void> => {
  await services.requests.approveProposal(
    { requestId, proposalId, decidedBy: MAINTAINER, via: 'local', mergeCommitSha: null },
    { commandId: randomUUID(), actor: MAINTAINER, at: new Date().toISOString() },
  );
};
