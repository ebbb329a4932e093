/**
 * The test-only composition the MCP conformance suite runs against: the product's gateway
 * (registry, services, /mcp endpoint, HTTP edge, the configured database — embedded PGlite
 * unless DATABASE_URL is set) with the suite's fixtures served beside the registry
 * (fixtures.ts). Prints `{"msg":"cogitave ready","mcp":URL}` on stderr, stops on SIGTERM.
 *   tsx test/conformance/server.ts
 */
import { createTokenAuth, loadTokenTable } from '../../mcp-gateway/auth/tokens.js';
import {
  createMcpEndpoint,
  endpointLimitsFromConfig,
} from '../../mcp-gateway/http/mcp-endpoint.js';
import { httpSettingsFromConfig, startHttpServer } from '../../mcp-gateway/http/server.js';
import { createMcpGateway } from '../../mcp-gateway/server/factory.js';
import { ALL_TOOLS } from '../../mcp-gateway/tools/index.js';
import { createApp } from '../../bin/app.js';
import { createGatewayServices } from '../../bin/gateway-services.js';
import { loadConfig } from '../../services/runtime/config.js';
import { createLogger } from '../../services/runtime/logger.js';
import { conformanceFixtures } from './fixtures.js';

const config = loadConfig({ CATALOG_DIR: 'none', ...process.env });
const logger = createLogger(config.logLevel);
const app = await createApp(config, logger);
const composed = await createGatewayServices(app);
const gateway = createMcpGateway({
  tools: ALL_TOOLS,
  services: composed.services,
  logger,
  version: '0.0.0-conformance',
  extension: conformanceFixtures,
});
const endpoint = createMcpEndpoint({
  gateway,
  services: composed.services,
  auth: createTokenAuth(loadTokenTable(config)),
  logger,
  ...endpointLimitsFromConfig(config),
});
const http = await startHttpServer({
  ...httpSettingsFromConfig(config),
  logger,
  readiness: [],
  routes: endpoint.routes,
});
app.projections.start();
// Whatever LOG_LEVEL says: run.sh waits for this line.
process.stderr.write(`${JSON.stringify({ msg: 'cogitave ready', mcp: `${http.url}/mcp` })}\n`);

const stop = async (): Promise<void> => {
  await endpoint.close();
  await http.close();
  await composed.close();
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
