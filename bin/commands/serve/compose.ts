import type { TokenAuth } from '../../../mcp-gateway/auth/tokens.js';
import type { McpGateway } from '../../../mcp-gateway/server/factory.js';
import { createStartUp } from '../../../mcp-gateway/start-up.js';
import type { App } from '../../app.js';
import { auditPart } from './audit.js';
import { gatewayPart } from './gateway.js';
import { pingDatabase } from './ops.js';
import { mergeParts, type ServedPart } from './parts.js';
import { projectorPart } from './projector.js';
import { reactorPart } from './reactor.js';
import { partsOf, type Role } from './roles.js';

export interface ServedRole extends ServedPart {
  /** The MCP gateway, for roles that serve MCP (all, gateway). */
  readonly gateway: McpGateway | undefined;
}

/** Builds the parts `role` runs on `app`, with the database check every role shares. */
export const composeRole = async (
  app: App,
  role: Role,
  options: { readonly auth: TokenAuth; readonly authLabel: string; readonly stdio: boolean },
): Promise<ServedRole> => {
  const wanted = partsOf(role);
  const database: ServedPart = {
    routes: [],
    readiness: [{ name: 'database', probe: () => pingDatabase(app.database) }],
    describe: {
      database: app.database.kind,
      location: app.database.location,
      eventStore: app.eventStore.kind,
    },
    start: () => undefined,
    drain: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  // One start-up state per process: the projector's catalog step first, then the gateway's
  // search index; MCP requests wait for both (mcp-gateway/start-up.ts).
  const startUp = createStartUp();
  const projector = wanted.projector ? projectorPart(app, startUp) : undefined;
  const gateway = wanted.gateway
    ? await gatewayPart(app, {
        auth: options.auth,
        authLabel: options.authLabel,
        http: !options.stdio,
        standalone: !projector,
        startUp,
        ...(projector ? { catalogReady: projector.catalogReady } : {}),
      })
    : undefined;
  // Parts close in reverse: digest publication last, after every writer has stopped.
  const parts = [
    database,
    ...(wanted.projector ? [auditPart(app)] : []),
    ...(wanted.reactor ? [reactorPart(app)] : []),
    ...(gateway ? [gateway] : []),
    ...(projector ? [projector] : []),
  ];
  return { ...mergeParts(parts), gateway: gateway?.gateway };
};
