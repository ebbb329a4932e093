import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultCorpusDir } from '../../../services/catalog/start-up.js';
import { cliEnv, repoRoot, sourceEntry } from '../../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * `cogitave serve --stdio` on a database with no catalog yet: the client connects while the
 * process ingests its CATALOG_DIR, and its first describe_schema (the call the server's
 * instructions say to make first) waits for the ingest and answers from the whole catalog,
 * never with an empty graph.
 */
const databases: ThrowawayDatabase[] = [];

afterEach(async () => {
  for (const db of databases.splice(0)) await db.drop();
});

const serverParams = (databaseUrl: string) => ({
  command: process.execPath,
  args: [...sourceEntry('bin/cogitave.ts'), 'serve', '--stdio'],
  cwd: repoRoot,
  // The shipped corpus as a CATALOG_DIR: ingested at start-up (without the type check).
  env: cliEnv({ DATABASE_URL: databaseUrl, CATALOG_DIR: defaultCorpusDir() }) as Record<
    string,
    string
  >,
  stderr: 'pipe' as const,
});

interface SchemaResult {
  readonly isError?: boolean;
  readonly structuredContent?: { readonly labels: { label: string; count: number }[] };
}

const countsOf = (result: SchemaResult): Record<string, number> =>
  Object.fromEntries(
    (result.structuredContent?.labels ?? []).map((label) => [label.label, label.count]),
  );

const fresh = async (label: string): Promise<string> => {
  const db = await createThrowawayDatabase(label);
  databases.push(db);
  return db.url;
};

describe('cogitave serve --stdio on a fresh catalog', () => {
  it('given a v2 client connected during the start-up ingest, when it calls describe_schema first, then the answer is the whole catalog (2026-07-28)', async () => {
    const client = new ModernClient(
      { name: 'e2e-start-up-v2', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new ModernStdio(serverParams(await fresh('start_up_stdio_v2'))));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const first = (await client.callTool(
        { name: 'describe_schema', arguments: {} },
        { timeout: 60_000 },
      )) as SchemaResult;
      expect(first.isError).toBeFalsy();
      expect(countsOf(first).Doc).toBeGreaterThan(0);
      // The first answer was not a partial catalog: a later one counts the same.
      const later = (await client.callTool({
        name: 'describe_schema',
        arguments: {},
      })) as SchemaResult;
      expect(countsOf(first)).toEqual(countsOf(later));
    } finally {
      await client.close();
    }
  });

  it('given a v1 client connected during the start-up ingest, when it calls describe_schema and then docs_search, then both answer from the whole catalog (2025-11-25)', async () => {
    const client = new LegacyClient({ name: 'e2e-start-up-v1', version: '1.0.0' });
    await client.connect(new LegacyStdio(serverParams(await fresh('start_up_stdio_v1'))));
    try {
      const first = await client.callTool({ name: 'describe_schema', arguments: {} }, undefined, {
        timeout: 60_000,
      });
      expect(first.isError).toBeFalsy();
      expect(countsOf(first as SchemaResult).Doc).toBeGreaterThan(0);
      const hits = await client.callTool({
        name: 'docs_search',
        arguments: { query: 'event store', limit: 5 },
      });
      expect(hits.isError).toBeFalsy();
      expect((hits.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});
