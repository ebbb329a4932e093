import { resolve } from 'node:path';
import { connectMcpSocket, bridge } from '../../../mcp-gateway/stdio-bridge.js';
import {
  isServeRecord,
  readOwnerRecord,
  type OwnerRecord,
} from '../../../services/database/embedded/owner-record.js';
import type { Config } from '../../../services/runtime/config.js';
import { Unavailable } from '../../../services/runtime/errors.js';
import type { Logger } from '../../../services/runtime/logger.js';

/**
 * `serve --stdio` on an embedded data folder that another `serve` owns: the folder has one
 * owner, so rather than be refused this process attaches to the owner's MCP socket and
 * carries its stdio there (see mcp-gateway/stdio-bridge.ts). It opens no database and loads
 * no PGlite. The folder free, or owned by a one-shot command, it returns false and `serve`
 * starts as usual (and, owning the folder, serves the MCP socket itself).
 */
const POLL_MS = 100;
// An owner that is still starting publishes its MCP socket once its gateway is composed
// (after opening and migrating the database); one that never does is an older version.
const PUBLISH_WAIT_MS = 60_000;

/**
 * The owning serve's record once it names an MCP socket; undefined when the folder is not
 * (or no longer) a serve's, or its socket was not published in time.
 */
const servingOwner = async (dataDir: string, logger: Logger): Promise<OwnerRecord | undefined> => {
  const started = Date.now();
  let announced = false;
  for (;;) {
    const record = readOwnerRecord(dataDir);
    if (!isServeRecord(record)) return undefined;
    if (record.mcpSocket !== undefined) return record;
    const waited = Date.now() - started;
    if (waited >= PUBLISH_WAIT_MS) return undefined;
    if (!announced && waited >= 1000) {
      announced = true;
      logger.warn(
        { dataDir, owner: record },
        `waiting for ${record.command} (pid ${String(record.pid)}) to finish starting`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
};

/** True when this process served its client through the owner (and should end now). */
export const attachToServingOwner = async (config: Config, logger: Logger): Promise<boolean> => {
  if (config.databaseUrl !== undefined || config.dataDir.startsWith('memory://')) return false;
  const dataDir = resolve(config.dataDir);
  const owner = await servingOwner(dataDir, logger);
  if (owner?.mcpSocket === undefined) return false;
  const socket = await connectMcpSocket(owner.mcpSocket);
  // The owner stopped between its record and now: start as usual (the folder may be free).
  if (!socket) return false;
  const who = `${owner.command} (pid ${String(owner.pid)})`;
  logger.info({ dataDir, owner: owner.pid }, `attached to ${who} on ${dataDir}`);
  const end = await bridge(socket, { input: process.stdin, output: process.stdout });
  if (end === 'owner-gone') {
    throw new Unavailable(
      `${who}, which this stdio session was attached to, stopped; start the MCP client's session again`,
      { dataDir, owner: owner.pid },
    );
  }
  return true;
};
