import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, stopCli, type CliResult } from '../../support/cli.js';
import {
  auditThroughOwner,
  callTool,
  connectAgent,
  describe as describeResult,
  embeddedFolder,
  intakeArgs,
  proposeAcceptance,
  readRequestEvents,
  startOwner,
  type Owner,
} from './support.js';

/**
 * Every `cogitave` command at once against a serving owner of the embedded default, while
 * agents keep writing over MCP: each command answers what the server sees, its writes are the
 * server's writes, and afterwards nothing acknowledged is missing, `verify` passes and the read
 * models equal a replay. The owner is then stopped and started again: all of it is still there.
 */
const { root, env } = embeddedFolder('cogitave-cli-serving-');
let owner: Owner | undefined;

afterAll(async () => {
  await stopCli(owner?.running);
  rmSync(root, { recursive: true, force: true });
});

const docs = (): string => {
  const dir = join(root, 'handbook');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'retention.md'),
    '---\ntitle: Retention of audit trails\n---\n\n# Retention of audit trails\n\nAudit trails are kept for seven years and exported as CSV on request.\n',
  );
  return dir;
};

const expectOk = (result: CliResult, what: string): void => {
  expect(result.code, `${what}: ${describeResult(result)}`).toBe(0);
};

/** Intakes until stopped; returns request id → title of every acknowledged one. */
const keepProposing = async (
  client: Client,
  label: string,
  stop: () => boolean,
): Promise<Map<string, string>> => {
  const acknowledged = new Map<string, string>();
  for (let i = 0; !stop(); i += 1) {
    const title = `Concurrent intake ${label}-${String(i)}`;
    const answer = await callTool(client, 'request_intake', intakeArgs(title));
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    acknowledged.set(answer.structuredContent?.request_id as string, title);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return acknowledged;
};

describe('every cogitave command while serve owns the embedded database', () => {
  it('given a serving owner and agents writing, when every CLI command runs at once, then each works through the owner and nothing is lost, then or after a restart', async () => {
    owner = await startOwner(env);
    const agent = await connectAgent(owner.url, 'cli-agent');
    // Two proposals for the maintainer to decide and one left pending, made before the commands
    // start: the list may run before, beside or after the decisions, so only the third is sure
    // to be listed.
    const proposals: string[] = [];
    for (const n of [1, 2, 3]) {
      const intake = await callTool(agent, 'request_intake', intakeArgs(`To decide ${String(n)}`));
      const id = intake.structuredContent?.request_id as string;
      const proposed = await callTool(agent, 'advance_stage', proposeAcceptance(id));
      proposals.push((proposed.structuredContent?.proposal as { proposal_id: string }).proposal_id);
    }
    const [toApprove, toReject, leftPending] = proposals as [string, string, string];
    const toWithdraw = (await callTool(agent, 'request_intake', intakeArgs('To withdraw')))
      .structuredContent?.request_id as string;

    let done = false;
    const writers = [0, 1].map(async (i) => {
      const client = await connectAgent(owner!.url, `writer-${String(i)}`);
      try {
        return await keepProposing(client, String(i), () => done);
      } finally {
        await client.close();
      }
    });
    const handbook = docs();
    const started = Date.now();
    const [list, approve, reject, withdraw, verify, read, tail, replay, ingest, migrate, config] =
      await Promise.all([
        runCli(['proposals', 'list', '--json'], env, 90_000),
        runCli(['proposals', 'approve', toApprove, '--as', 'alice'], env, 90_000),
        runCli(
          ['proposals', 'reject', toReject, '--as', 'alice', '--reason', 'Later.'],
          env,
          90_000,
        ),
        runCli(
          ['requests', 'withdraw', toWithdraw, '--as', 'alice', '--reason', 'Dup.'],
          env,
          90_000,
        ),
        runCli(['verify', '--json'], env, 90_000),
        runCli(
          ['events', 'read', `request-${toApprove.replace(/-p\d+$/, '')}`, '--json'],
          env,
          90_000,
        ),
        runCli(['events', 'tail', '--last', '5', '--no-follow', '--json'], env, 90_000),
        runCli(['replay', '--json'], env, 90_000),
        runCli(['ingest', handbook, '--source', 'handbook', '--json'], env, 90_000),
        runCli(['migrate'], env, 90_000),
        runCli(['config', '--json'], env, 90_000),
      ]);
    const elapsed = Date.now() - started;
    done = true;
    const acknowledged = new Map([...(await Promise.all(writers))].flatMap((m) => [...m]));

    for (const [result, what] of [
      [list, 'proposals list'],
      [approve, 'proposals approve'],
      [reject, 'proposals reject'],
      [withdraw, 'requests withdraw'],
      [verify, 'verify'],
      [read, 'events read'],
      [tail, 'events tail'],
      [replay, 'replay'],
      [ingest, 'ingest'],
      [migrate, 'migrate'],
      [config, 'config'],
    ] as const)
      expectOk(result, what);
    // The list saw the server's pending proposals.
    expect(list.stdout).toContain(leftPending);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });
    expect(JSON.parse(replay.stdout)).toMatchObject({ equal: true });
    expect(read.stdout).toContain('"RequestProposed"');
    // The newest 5, then what the agents committed until it stopped (--no-follow).
    expect(tail.stdout.split('\n').filter((line) => line !== '').length).toBeGreaterThanOrEqual(5);
    expect(JSON.parse(config.stdout)).toContainEqual(
      expect.objectContaining({ env: 'COGITAVE_DATA_DIR', value: join(root, 'data') }),
    );
    expect(acknowledged.size).toBeGreaterThan(0);
    process.stderr.write(
      `cli-while-serving: 11 commands at once in ${String(elapsed)} ms; proposals list ${String(list.durationMs)} ms, approve ${String(approve.durationMs)} ms\n`,
    );

    const check = async (): Promise<void> => {
      const events = await readRequestEvents(env);
      const titles = new Map(
        events
          .filter((e) => e.type === 'RequestProposed')
          .map((e) => [String(e.data.requestId), String(e.data.title)]),
      );
      for (const [id, title] of acknowledged) expect(titles.get(id), id).toBe(title);
      const types = events.map((e) => `${e.type}:${String(e.data.proposalId ?? e.data.requestId)}`);
      expect(types).toContain(`StageAdvanceApproved:${toApprove}`);
      expect(types).toContain(`StageAdvanceRejected:${toReject}`);
      expect(types).toContain(`RequestWithdrawn:${toWithdraw}`);
      const { verify: again, replay: rebuilt } = await auditThroughOwner(env);
      expectOk(again, 'verify');
      expectOk(rebuilt, 'replay');
      expect(JSON.parse(rebuilt.stdout)).toMatchObject({ equal: true });
      const found = await callTool(await connectAgent(owner!.url, 'reader'), 'docs_search', {
        query: 'retention of audit trails',
        limit: 5,
      });
      expect(JSON.stringify(found.structuredContent)).toContain('Retention of audit trails');
    };
    // The agent sees the maintainer's decisions at once, through its own server.
    const approved = await callTool(agent, 'get_request', {
      request_id: toApprove.replace(/-p\d+$/, ''),
    });
    expect((approved.structuredContent?.request as { stage: string }).stage).toBe('accepted');
    await agent.close();
    await check();

    owner.running.child.kill('SIGTERM');
    await owner.running.exited;
    owner = await startOwner(env);
    await check();
  }, 300_000);
});
