import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, repoRoot, sourceEntry } from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import {
  listAndCallEveryTool,
  ingestShippedCorpus,
  startGateway,
  waitForProjections,
} from './support.js';

/**
 * `cogitave serve --stdio` as a local MCP client starts it: stdout carries only MCP messages
 * (logs go to stderr), both protocol revisions are served, everything is granted as `local`.
 */
let db: ThrowawayDatabase;

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_stdio');
  // The catalog is ingested and projected before the stdio server starts, so its tools find it.
  const seeder = await startGateway(db.url);
  try {
    await ingestShippedCorpus(seeder.app);
    await waitForProjections([seeder.app]);
  } finally {
    await seeder.close();
  }
});

afterAll(async () => {
  await db.drop();
});

const serverParams = () => ({
  command: process.execPath,
  args: [...sourceEntry('bin/cogitave.ts'), 'serve', '--stdio'],
  cwd: repoRoot,
  env: cliEnv({ DATABASE_URL: db.url, CATALOG_DIR: 'none', LOG_LEVEL: 'info' }) as Record<
    string,
    string
  >,
  stderr: 'pipe' as const,
});

describe('cogitave serve --stdio', () => {
  it('given a v1 client, when it lists tools and calls every tool over stdio, then 2025-11-25 and every result matches its outputSchema', async () => {
    const transport = new LegacyStdio(serverParams());
    const client = new LegacyClient({ name: 'e2e-stdio-v1', version: '1.0.0' });
    // The v1 client hands the negotiated version to transports that take it; stdio does not.
    let negotiated: string | undefined;
    Object.assign(transport, {
      setProtocolVersion: (version: string) => {
        negotiated = version;
      },
    });
    await client.connect(transport);
    try {
      expect(negotiated).toBe('2025-11-25');
      expect(client.getServerVersion()?.name).toBe('cogitave-core');
      await listAndCallEveryTool(client, 'stdio_v1');
    } finally {
      await client.close();
    }
  });

  it('given a v2 client in auto negotiation, when it calls every tool over stdio, then 2026-07-28, every result matches its outputSchema, and bad input is a tool error', async () => {
    const client = new ModernClient(
      { name: 'e2e-stdio-v2', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new ModernStdio(serverParams()));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await listAndCallEveryTool(client, 'stdio_v2');
      const bad = await client.callTool({ name: 'get_request', arguments: { request_id: 'nope' } });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('request_id');
    } finally {
      await client.close();
    }
  });
});
