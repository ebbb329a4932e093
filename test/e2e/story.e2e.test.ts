import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodePosition } from '../../services/event-store/position.js';
import { defaultCorpusDir } from '../../services/catalog/start-up.js';
import { NODE_STREAM_PREFIX } from '../../services/catalog/events.js';
import { SOURCE_STREAM_PREFIX } from '../../services/catalog/sources.js';
import { cliEnv, runCli } from '../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import { DOUBLE_OWNER, DOUBLE_REPO, startTopology, type Topology } from '../topology/topology.js';

/**
 * The product's story, end to end, on the production topology: two gateway processes, a
 * projector and a reactor (`cogitave serve --role …`) on one Postgres, GitHub played by the
 * local API double and a maintainer who merges or closes pull requests there (signed webhooks).
 *
 * Agent A (v1 SDK, 2025-11-25, gateway 1) learns the graph, proposes an intake and the next
 * stages with evidence. Agent B (v2 SDK, 2026-07-28, gateway 2) listens to the request's URI
 * and reads the request on every `resources/updated`: the test only moves on once B has seen
 * the change, so every step below is a notification B received from the other process. An
 * auditor then verifies the hash chains, replays the read models and travels back in time.
 */
interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: unknown[];
}

interface Pending {
  toStage: string;
  pullNumber: number | null;
}

interface Seen {
  version: number;
  stage: string;
  pendingProposal: Pending | null;
}

let db: ThrowawayDatabase;
let topology: Topology | undefined;

beforeAll(async () => {
  db = await createThrowawayDatabase('story');
  // The shipped corpus is ingested once, by the CLI, beside the topology's start (the processes
  // run with CATALOG_DIR=none so that none of them compiles the samples again).
  const [topologyStarted, ingest] = await Promise.allSettled([
    startTopology({
      databaseUrl: db.url,
      gateways: 2,
      // GitHub is the local double whatever the developer's shell holds.
      env: Object.fromEntries(
        Object.entries(cliEnv({ COGITAVE_POLL_INTERVAL_MS: '100' })).filter(
          ([key]) => !key.startsWith('GITHUB_'),
        ),
      ),
      readyTimeoutMs: 60_000,
    }),
    runCli(
      ['ingest', defaultCorpusDir(), '--no-check-samples'],
      cliEnv({ DATABASE_URL: db.url }),
      60_000,
    ),
  ]);
  if (topologyStarted.status === 'rejected') throw topologyStarted.reason;
  topology = topologyStarted.value;
  if (ingest.status === 'rejected') throw ingest.reason;
  if (ingest.value.code !== 0) throw new Error(`ingest failed: ${ingest.value.stderr}`);
}, 90_000);

afterAll(async () => {
  await topology?.stop();
  await db.drop();
});

/**
 * Resolves once the projector's catalog projection has applied every catalog event (the
 * corpus). Its checkpoint is the last event it applied, so the head it must reach is the newest
 * event of the streams it follows: the topology's own events may come after the ingest's.
 */
const catalogProjected = async (): Promise<void> => {
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  try {
    const { rows } = await pool.query<{ tx: string; pos: string }>(
      `SELECT transaction_id::text AS tx, position::text AS pos FROM event_store.events
        WHERE stream_id LIKE ANY ($1::text[])
        ORDER BY transaction_id DESC, position DESC LIMIT 1`,
      [[`${NODE_STREAM_PREFIX}%`, `${SOURCE_STREAM_PREFIX}%`]],
    );
    const head = encodePosition(BigInt(rows[0]!.tx), BigInt(rows[0]!.pos));
    await waitUntil(async () => {
      const checkpoint = await pool.query<{ position: string | null }>(
        `SELECT position FROM projections.checkpoints
          WHERE name = 'catalog' AND target_schema = 'read_model'`,
      );
      const position = checkpoint.rows[0]?.position ?? '';
      return position >= head ? true : undefined;
    }, 'the catalog projection to catch up');
  } finally {
    await pool.end();
  }
};

const waitUntil = async <T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 30_000,
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('the Cogitave Core story across processes', () => {
  it('given two gateways, a projector and a reactor on one Postgres with GitHub, when an agent learns, proposes and a maintainer decides, then a second agent on the other gateway hears every change and the auditor verifies, replays and time-travels', async () => {
    if (!topology) throw new Error('the topology did not start');
    const [gateway1, gateway2] = topology.gateways;
    const { double, maintainer } = topology.github;
    if (!gateway1 || !gateway2 || !double || !maintainer) throw new Error('topology incomplete');

    // Agent A: v1 SDK on gateway 1.
    const agent = new LegacyClient({ name: 'story-agent', version: '1.0.0' });
    const legacy = new LegacyHttp(new URL(`${gateway1.url}/mcp`));
    await agent.connect(legacy);
    expect(legacy.protocolVersion).toBe('2025-11-25');
    const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
      const result = (await agent.callTool({ name, arguments: args })) as ToolResult;
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      return result;
    };

    // It learns the graph the projector built from the shipped corpus.
    await catalogProjected();
    const schema = await call('describe_schema', {});
    expect(JSON.stringify(schema.structuredContent)).toContain('learning_path');
    const hits = await waitUntil(async () => {
      const found = await call('docs_search', { query: 'event store', limit: 5 });
      const results = found.structuredContent?.results as { uid: string }[];
      return results.length > 0 ? results : undefined;
    }, 'the search index of gateway 1');
    expect(hits[0]?.uid).toMatch(/^cogitave\./);
    const path = await call('get_learning_path', {
      target_uid: 'cogitave.learn.path.agent-onboarding',
    });
    expect(JSON.stringify(path.structuredContent)).toContain('cogitave.');

    // It proposes an intake: a GitHub issue follows (reactor process).
    const intake = await call('request_intake', {
      title: 'Export audit trails as CSV',
      problem:
        'Auditors copy the history of requests by hand today, which takes hours and loses rows.',
      product: 'core',
      requester: 'audit-team',
      acceptance_criteria: ['An export of 10000 events finishes within 5 seconds'],
    });
    const requestId = intake.structuredContent?.request_id as string;
    const uri = `cogitave://request/${requestId}`;
    await waitUntil(
      () => (double.listIssues(DOUBLE_OWNER, DOUBLE_REPO).length === 1 ? true : undefined),
      'the intake issue on GitHub',
    );

    // Agent B: v2 SDK on gateway 2, listening to the request; it reads it on every update.
    const listener = new ModernClient(
      { name: 'story-listener', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await listener.connect(new ModernHttp(new URL(`${gateway2.url}/mcp`)));
    const seen: Seen[] = [];
    let updates = 0;
    listener.setNotificationHandler('notifications/resources/updated', (note) => {
      if (note.params.uri !== uri) return;
      updates += 1;
      void listener.readResource({ uri }).then((read) => {
        const [content] = read.contents;
        seen.push(JSON.parse((content as { text: string }).text) as Seen);
      });
    });
    const listen = await listener.listen({ resourceSubscriptions: [uri] });
    let lastVersion = -1;
    /** Resolves with the first state B read, newer than the last step's, that matches. */
    const bSees = (match: (state: Seen) => boolean, what: string): Promise<Seen> =>
      waitUntil(() => {
        const state = seen
          .filter((candidate) => candidate.version > lastVersion)
          .sort((x, y) => x.version - y.version)
          .find(match);
        if (state) lastVersion = state.version;
        return state;
      }, `agent B (gateway 2) to see ${what}`);

    const propose = async (toStage: string, evidence: Record<string, unknown>): Promise<number> => {
      await call('advance_stage', {
        request_id: requestId,
        to_stage: toStage,
        evidence,
        rationale: `The Definition of Done for ${toStage} is met; evidence attached.`,
      });
      await bSees((s) => s.pendingProposal?.toStage === toStage, `the ${toStage} proposal`);
      const opened = await bSees(
        (s) => s.pendingProposal?.toStage === toStage && s.pendingProposal.pullNumber !== null,
        `the draft pull request for ${toStage}`,
      );
      const pull = opened.pendingProposal!.pullNumber!;
      expect(double.getPullRequest(DOUBLE_OWNER, DOUBLE_REPO, pull).draft).toBe(true);
      return pull;
    };
    const decided = (
      answer: { status: number; body: Record<string, unknown> },
      command: string,
    ) => {
      expect(answer).toEqual({
        status: 200,
        body: expect.objectContaining({ status: 'applied', command, requestId }) as unknown,
      });
    };

    try {
      // The maintainer merges the acceptance pull request: only now is the request accepted.
      const acceptance = await propose('accepted', {
        criteria: { 'ac-1': 'agreed with the audit team' },
      });
      decided(await maintainer.merge(acceptance), 'approveProposal');
      await bSees((s) => s.stage === 'accepted' && s.pendingProposal === null, 'stage accepted');

      // A first specification is rejected: the pull request is closed unmerged.
      const spec = {
        specLink: 'https://example.org/adr/0042-csv-export',
        testPlan: 'An e2e test exports 10000 events and times it (ac-1).',
        rollbackPlan: 'Revert the export route; nothing else depends on it.',
      };
      const rejected = await propose('specified', { specLink: spec.specLink });
      decided(await maintainer.close(rejected), 'rejectProposal');
      await bSees(
        (s) => s.stage === 'accepted' && s.pendingProposal === null,
        'the rejection (still accepted, nothing pending)',
      );

      // The complete specification is merged.
      decided(await maintainer.merge(await propose('specified', spec)), 'approveProposal');
      await bSees((s) => s.stage === 'specified', 'stage specified');
      // Three proposals, each a proposal and its pull request, and three decisions.
      expect(updates).toBeGreaterThanOrEqual(9);

      // The auditor: hash chains, a rebuild of every read model, and time travel.
      const auditEnv = cliEnv({ DATABASE_URL: db.url });
      const [verify, replay] = await Promise.all([
        runCli(['verify'], auditEnv),
        runCli(['replay', '--json'], auditEnv),
      ]);
      expect(verify.code, verify.stderr).toBe(0);
      expect(verify.stdout).toMatch(
        /^verified \d+ events in \d+ streams \(\d+ compared with the seal\)$/m,
      );
      expect(replay.code, replay.stderr).toBe(0);
      const report = JSON.parse(replay.stdout) as {
        equal: boolean;
        projections: { tables: { sha256: { live: string; shadow: string } }[] }[];
      };
      expect(report.equal).toBe(true);
      for (const table of report.projections.flatMap((projection) => projection.tables)) {
        expect(table.sha256.shadow).toBe(table.sha256.live);
      }

      const now = await call('get_request', { request_id: requestId });
      const history = now.structuredContent?.history as { type: string; position: string }[];
      const rejection = history.findIndex((entry) => entry.type === 'StageAdvanceRejected');
      expect(rejection).toBeGreaterThan(0);
      const before = history[rejection - 1]!.position;
      const then = await call('get_request', { request_id: requestId, as_of: before });
      expect(then.structuredContent).toMatchObject({
        source: 'event_stream',
        as_of: before,
        request: {
          stage: 'accepted',
          pendingProposal: { toStage: 'specified', pullNumber: rejected },
        },
      });
      expect(double.violations).toEqual([]);
    } finally {
      await listen.close();
      await listener.close();
      await agent.close();
    }
  });
});
