import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../bin/app.js';
import { PROJECTIONS } from '../../../bin/read-models.js';
import { runReplay } from '../../../projections/replay-run.js';
import { readOwnerRecord } from '../../../services/database/embedded/owner-record.js';
import type { Position, RecordedEvent } from '../../../services/event-store/types.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { seededRandom } from '../../int/projections/support/crash-trials.js';
import { spawnCli, stopCli, type RunningCli } from '../../support/cli.js';
import {
  auditThroughOwner,
  callTool,
  connectAgent,
  describe as describeResult,
  embeddedFolder,
  intakeArgs,
  proposeAcceptance,
  startOwner,
  trace,
  type Owner,
} from './support.js';

/**
 * Crash safety of the embedded default: `serve` owns a fresh data folder while agents propose
 * over MCP (official SDK client, Streamable HTTP) and maintainers approve and reject from the
 * CLI (processes that go through the owner); the owner is killed with SIGKILL at a seeded
 * random point, CRASH_KILLS times (default 20), and started again. After every restart: the
 * new serve owns the folder (the dead owner's lock is recovered, never shared), every write
 * acknowledged to a client is in the log, the log verifies, and the read models equal a
 * rebuild from the log. CRASH_SEED repeats a run.
 */
const KILLS = Number(process.env.CRASH_KILLS ?? 20);
const SEED = Number(process.env.CRASH_SEED ?? 1313);
const AGENTS = 3;
// The owner is killed at a seeded point of its burst: once the round has acknowledged
// 1..KILL_AFTER_WRITES intakes (a count, so a loaded machine moves the point in time but not
// past the writes), then after 0..KILL_JITTER_MS more, mid-write.
const KILL_AFTER_WRITES = 6;
const KILL_JITTER_MS = 300;
// How long a round waits at most for its CLI decision (a loaded machine starts processes slowly).
const DECISION_WAIT_MS = 5000;

const { root, dataDir, env } = embeddedFolder('cogitave-kill-owner-');
let owner: Owner | undefined;

afterAll(async () => {
  await stopCli(owner?.running);
  rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

interface Acknowledged {
  /** request id → title of every intake answered without error. */
  readonly intakes: Map<string, string>;
  /** Proposal ids a `proposals approve|reject` exited 0 for, with the event it must have left. */
  readonly decisions: Map<string, 'StageAdvanceApproved' | 'StageAdvanceRejected'>;
}

/** Agents propose until the owner dies; every answered intake is acknowledged. */
const agentBurst = async (
  url: string,
  round: number,
  acknowledged: Acknowledged,
  pending: string[],
): Promise<void> => {
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, agent) => {
      let client: Client | undefined;
      try {
        client = await connectAgent(url, `agent-${String(agent)}`);
        for (let i = 0; ; i += 1) {
          const title = `Crash ${String(round)}-${String(agent)}-${String(i)}`;
          const answer = await callTool(client, 'request_intake', intakeArgs(title), 5000);
          const id = answer.structuredContent?.request_id;
          if (answer.isError || typeof id !== 'string') break;
          acknowledged.intakes.set(id, title);
          if (i % 2 === 0) {
            const proposed = await callTool(client, 'advance_stage', proposeAcceptance(id), 5000);
            const proposal = proposed.structuredContent?.proposal as
              { proposal_id?: string } | undefined;
            if (proposal?.proposal_id) pending.push(proposal.proposal_id);
          }
        }
      } catch {
        // The owner was killed under the call: what it did not answer is not acknowledged.
      } finally {
        await client?.close().catch(() => undefined);
      }
    }),
  );
};

/**
 * A maintainer deciding pending proposals from the CLI, one process per decision. The
 * process in flight when the owner is killed is killed with it (`running` holds it).
 */
const maintainerBurst = async (
  stop: () => boolean,
  pending: string[],
  acknowledged: Acknowledged,
  decision: 'approve' | 'reject',
  running: Set<RunningCli>,
): Promise<void> => {
  while (!stop()) {
    const proposal = pending.shift();
    if (!proposal) {
      await sleep(50);
      continue;
    }
    const args =
      decision === 'approve'
        ? ['proposals', 'approve', proposal, '--as', 'alice']
        : ['proposals', 'reject', proposal, '--as', 'alice', '--reason', 'Not now.'];
    const cli = spawnCli(args, env);
    running.add(cli);
    const result = await cli.exited;
    running.delete(cli);
    if (result.code === 0) {
      acknowledged.decisions.set(
        proposal,
        decision === 'approve' ? 'StageAdvanceApproved' : 'StageAdvanceRejected',
      );
    }
  }
};

const readLog = async (
  eventStore: Awaited<ReturnType<typeof createApp>>['eventStore'],
): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  let from: Position | undefined;
  for (;;) {
    const page = await eventStore.readAll({
      maxCount: 2000,
      ...(from === undefined ? {} : { fromPosition: from }),
    });
    events.push(...page);
    if (page.length < 2000) return events;
    from = page.at(-1)?.position;
  }
};

/**
 * Through the restarted owner, as `cogitave verify` and `cogitave replay` do (the same
 * composition root and use cases, in this process to keep twenty rounds fast): what was
 * acknowledged is present, the log verifies, the read models equal a rebuild.
 */
const checkAfterRestart = async (
  acknowledged: Acknowledged,
): Promise<{ present: number; lost: string[] }> => {
  const app = await createApp(loadConfig(env), createLogger('silent'), {
    command: 'cogitave kill-owner check',
  });
  try {
    expect(app.database.embedded?.role).toBe('client');
    const events = await readLog(app.eventStore);
    const titles = new Map(
      events
        .filter((event) => event.type === 'RequestProposed')
        .map((event) => {
          const data = event.data as { requestId: string; title: string };
          return [data.requestId, data.title];
        }),
    );
    const decided = new Set(
      events.map(
        (event) => `${event.type}:${String((event.data as { proposalId?: string }).proposalId)}`,
      ),
    );
    const lost: string[] = [];
    let present = 0;
    for (const [id, title] of acknowledged.intakes) {
      if (titles.get(id) === title) present += 1;
      else lost.push(`intake ${id}`);
    }
    for (const [proposal, type] of acknowledged.decisions) {
      if (decided.has(`${type}:${proposal}`)) present += 1;
      else lost.push(`${type} ${proposal}`);
    }
    const report = await app.audit.verify({ kind: 'latest' });
    expect(report.ok, JSON.stringify(report.problem)).toBe(true);
    const replays = await runReplay({
      database: app.database,
      eventStore: app.eventStore,
      logger: app.logger,
      projections: PROJECTIONS,
      swap: false,
      keep: false,
      workers: 1,
    });
    for (const replay of replays) {
      expect(replay.equal, `${replay.projection}: ${JSON.stringify(replay.tables)}`).toBe(true);
    }
    return { present, lost };
  } finally {
    await app.close();
  }
};

describe('kill -9 of the embedded owner during a burst of writes', () => {
  it(`given serve owns a fresh data folder, when it is killed with SIGKILL ${String(KILLS)} times amid concurrent intakes and CLI decisions, then after every restart nothing acknowledged is lost, verify passes and the read models equal a replay`, async () => {
    const random = seededRandom(SEED);
    const acknowledged: Acknowledged = { intakes: new Map(), decisions: new Map() };
    const pending: string[] = [];
    const started = Date.now();
    let last = { present: 0, lost: [] as string[] };

    for (let round = 0; round <= KILLS; round += 1) {
      owner = await startOwner(env);
      const pid = owner.running.child.pid;
      // The dead owner's lock was recovered by the new serve, which owns the folder alone.
      expect(readOwnerRecord(dataDir)).toMatchObject({ pid });
      trace(`round ${String(round)}: owner ${String(pid)} ready`);
      // What was acknowledged before this round's burst: the checks look for exactly that.
      const before: Acknowledged = {
        intakes: new Map(acknowledged.intakes),
        decisions: new Map(acknowledged.decisions),
      };
      const checked =
        round === 0
          ? Promise.resolve()
          : checkAfterRestart(before).then((found) => {
              last = found;
              expect(found.lost, `lost after kill ${String(round)}`).toEqual([]);
            });
      if (round === KILLS) {
        await checked;
        break;
      }

      // Decisions start at once (proposals left pending by earlier rounds) while the checks of
      // the previous kill run; the agents' burst follows the checks, and the owner dies at the
      // seeded delay after the burst started.
      const killAfterWrites = 1 + Math.floor(random() * KILL_AFTER_WRITES);
      const jitter = Math.floor(random() * KILL_JITTER_MS);
      // Half the rounds also wait for a CLI decision to be acknowledged, so the kill lands
      // right after one as well as amid the agents' writes.
      const afterDecision = random() < 0.5;
      const decisionsBefore = acknowledged.decisions.size;
      let dead = false;
      const stop = (): boolean => dead;
      const inFlight = new Set<RunningCli>();
      const maintainers = [
        maintainerBurst(stop, pending, acknowledged, 'approve', inFlight),
        maintainerBurst(stop, pending, acknowledged, 'reject', inFlight),
      ];
      // Agents write once the checks are done: checks racing a write storm only get slower.
      await checked;
      const target = acknowledged.intakes.size + killAfterWrites;
      const agents = agentBurst(owner.url, round, acknowledged, pending);
      const burst = { ended: false };
      void agents.finally(() => {
        burst.ended = true;
      });
      while (acknowledged.intakes.size < target && !burst.ended) await sleep(5);
      const decisionDeadline = Date.now() + DECISION_WAIT_MS;
      while (
        afterDecision &&
        acknowledged.decisions.size === decisionsBefore &&
        (pending.length > 0 || inFlight.size > 0) &&
        Date.now() < decisionDeadline
      ) {
        await sleep(5);
      }
      await sleep(jitter);
      owner.running.child.kill('SIGKILL');
      for (const cli of inFlight) cli.child.kill('SIGKILL');
      dead = true;
      await owner.running.exited;
      trace(
        `round ${String(round)}: killed ${String(jitter)} ms after intake ${String(killAfterWrites)} of the round`,
      );
      await Promise.all([agents, ...maintainers]);
    }

    // Once more with the commands themselves, through the last owner.
    const { verify, replay } = await auditThroughOwner(env);
    expect(verify.code, describeResult(verify)).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });
    expect(replay.code, describeResult(replay)).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ equal: true });

    const total = acknowledged.intakes.size + acknowledged.decisions.size;
    process.stderr.write(
      `kill-owner: seed ${String(SEED)}, kills ${String(KILLS)}, acknowledged ${String(total)} (${String(acknowledged.intakes.size)} intakes, ${String(acknowledged.decisions.size)} decisions), present ${String(last.present)}, lost ${String(last.lost.length)}; ${String(Date.now() - started)} ms\n`,
    );
    expect(acknowledged.intakes.size).toBeGreaterThan(KILLS);
    if (KILLS >= 4) expect(acknowledged.decisions.size).toBeGreaterThan(0);
    expect(last.present).toBe(total);
  }, 900_000);
});
