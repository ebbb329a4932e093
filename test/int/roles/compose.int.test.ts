import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTokenAuth } from '../../../mcp-gateway/auth/tokens.js';
import { composeRole, type ServedRole } from '../../../bin/commands/serve/compose.js';
import { assertRoleFits, type Role } from '../../../bin/commands/serve/roles.js';
import { createApp, type App } from '../../../bin/app.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * What each `serve` role composes on an App: its routes, readiness checks and background work.
 * Two projector processes share the projections: one leader per projection, the other stands
 * by and takes over when the leader stops.
 */
let db: ThrowawayDatabase;
const opened: { app: App; served: ServedRole }[] = [];

const compose = async (role: Role): Promise<{ app: App; served: ServedRole }> => {
  const config = loadConfig({
    DATABASE_URL: db.url,
    COGITAVE_POLL_INTERVAL_MS: '100',
    CATALOG_DIR: 'none',
  });
  const app = await createApp(config, createLogger('silent'));
  const served = await composeRole(app, role, {
    auth: createTokenAuth({}),
    authLabel: 'local',
    stdio: false,
  });
  const entry = { app, served };
  opened.push(entry);
  return entry;
};

const stop = async (entry: { app: App; served: ServedRole }): Promise<void> => {
  opened.splice(opened.indexOf(entry), 1);
  await entry.served.drain();
  await entry.served.close();
  await entry.app.close();
};

beforeAll(async () => {
  db = await createThrowawayDatabase('roles_compose');
});

afterAll(async () => {
  for (const entry of [...opened]) await stop(entry);
  await db.drop();
});

const paths = (served: ServedRole): string[] => served.routes.map((route) => route.path);
const checks = (served: ServedRole): string[] => served.readiness.map((check) => check.name);

describe('serve role composition', () => {
  it('given the gateway role, when composed and started, then it mounts MCP, REST and llms.txt, checks the change feed, and applies no projection', async () => {
    const gateway = await compose('gateway');
    gateway.served.start();

    expect(gateway.served.gateway).toBeDefined();
    expect(paths(gateway.served)).toEqual(expect.arrayContaining(['/mcp', '/llms.txt']));
    // The gateway answers docs_search, so it is ready once its search index is built.
    expect(checks(gateway.served)).toEqual(['database', 'search', 'change-feed']);
    expect(gateway.served.projections).toBeUndefined();
    await vi.waitFor(
      async () => {
        const probes = await Promise.all(gateway.served.readiness.map((check) => check.probe()));
        expect(probes).toEqual([true, true, true]);
      },
      { timeout: 30_000, interval: 100 },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const states = gateway.app.projections.status().map((status) => status.state);
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((state) => state === 'starting')).toBe(true);
    await stop(gateway);
  });

  it('given two projector processes, when both start, then each projection has one leader and the other takes over when the leader stops', async () => {
    const first = await compose('projector');
    const second = await compose('projector');
    expect(paths(first.served)).toEqual([]);
    expect(first.served.gateway).toBeUndefined();
    // A projector ingests the shipped catalog, so it waits for that before it is ready.
    expect(checks(first.served)).toEqual(['database', 'catalog']);
    first.served.start();
    for (const status of first.served.projections!()) {
      await first.app.projections.waitFor(status.name, (s) => s.leader, 10_000);
    }
    second.served.start();
    for (const status of second.served.projections!()) {
      await second.app.projections.waitFor(status.name, (s) => s.state === 'standby', 10_000);
    }
    expect(second.served.projections!().every((status) => !status.leader)).toBe(true);

    await stop(first);
    for (const status of second.served.projections!()) {
      await second.app.projections.waitFor(status.name, (s) => s.leader, 10_000);
    }
  });

  it('given the reactor role in local approval mode, when composed, then it has nothing to run and says so', async () => {
    const reactor = await compose('reactor');
    expect(reactor.served.describe).toMatchObject({ approvals: 'local' });
    expect(paths(reactor.served)).toEqual([]);
    expect(checks(reactor.served)).toEqual(['database']);
    await stop(reactor);
  });

  it('given a role that cannot work, when checked before start-up, then a coded error names what to set', () => {
    const server = loadConfig({ DATABASE_URL: db.url });
    const embedded = loadConfig({});
    expect(() => {
      assertRoleFits('all', embedded, false);
      assertRoleFits('gateway', server, true);
    }).not.toThrow();
    for (const role of ['gateway', 'projector', 'reactor'] as const) {
      expect(() => {
        assertRoleFits(role, embedded, false);
      }).toThrow(
        expect.objectContaining({
          code: 'CONFIG_INVALID',
          message: expect.stringMatching(/^DATABASE_URL: /) as unknown,
        }),
      );
    }
    expect(() => {
      assertRoleFits('projector', server, true);
    }).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining(
          '--stdio serves MCP, which the projector role does not',
        ) as unknown,
      }),
    );
    expect(() => {
      assertRoleFits('reactor', server, false);
    }).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining('serve --role reactor runs the GitHub reactor') as unknown,
      }),
    );
  });
});
