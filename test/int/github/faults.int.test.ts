import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markerIn } from '../../../services/github/markers.js';
import type { GitHubClient } from '../../../services/github/client.js';
import {
  OWNER,
  REPO,
  openHarness,
  proposeAcceptance,
  proposeIntake,
  reactorCaughtUp,
  requestEvents,
  type Harness,
} from './harness.js';

/**
 * The fault suite: 200 proposals (100 intakes, 100 stage proposals) while about 30 % of all
 * GitHub calls fail in every way the double knows — a 500 after the write was done, a 500
 * before it, a hung request (after the write) that our client times out, secondary and
 * primary rate limits with retry-after, 429s and 422 "already exists" without a write. In the
 * end each proposal has exactly one issue or pull request, and each is recorded once.
 */
const REQUESTS = 100;

let h: Harness;
let client: GitHubClient;
const requestIds: string[] = [];

beforeAll(async () => {
  h = await openHarness('github_faults');
  for (let n = 1; n <= REQUESTS; n += 1) {
    const requestId = await proposeIntake(h.handlers, n);
    await proposeAcceptance(h.handlers, requestId);
    requestIds.push(requestId);
  }
  // Well above the double's answer time, well below how long it holds a hung request.
  client = h.client({ requestTimeoutMs: 80 });
});

afterAll(async () => {
  await h.close();
});

describe('GitHub reactor under faults', () => {
  it('given ~30 % of GitHub calls failing, when 200 proposals are handled, then each has exactly one issue or pull request, recorded once', async () => {
    const stopFaults = h.double.faults.random({
      probability: 0.3,
      kinds: [
        'error-after-write',
        'error-before-write',
        'timeout',
        'secondary-rate-limit',
        'rate-limit-429',
        'primary-rate-limit',
        'already-exists',
      ],
      seed: 20_260_301,
      ms: 400,
      afterWrite: true,
      retryAfter: 1,
    });
    const started = Date.now();
    const reactor = h.reactor(client);
    reactor.start();
    await reactorCaughtUp(h, reactor, 100_000);
    const seconds = (Date.now() - started) / 1000;
    stopFaults();
    await reactor.stop();

    const issues = h.double.listIssues(OWNER, REPO);
    const pulls = h.double.listPullRequests(OWNER, REPO);
    const issuesPerRequest = new Map<string, number>();
    for (const issue of issues) {
      const id = markerIn(issue.body, 'request') ?? '?';
      issuesPerRequest.set(id, (issuesPerRequest.get(id) ?? 0) + 1);
    }
    const pullsPerBranch = new Map<string, number>();
    for (const pull of pulls)
      pullsPerBranch.set(pull.head.ref, (pullsPerBranch.get(pull.head.ref) ?? 0) + 1);
    const duplicates =
      [...issuesPerRequest.values()].filter((count) => count > 1).length +
      [...pullsPerBranch.values()].filter((count) => count > 1).length;

    const stats = h.double.stats;
    const calls = Object.values(stats.calls).reduce((sum, n) => sum + n, 0);
    const faults = Object.values(stats.faults).reduce((sum, n) => sum + n, 0);
    const figures = {
      proposals: REQUESTS * 2,
      issues: issues.length,
      pullRequests: pulls.length,
      duplicates,
      seconds,
      double: { calls, faults, faultsByKind: stats.faults, writes: stats.writes },
      client: {
        ...client.stats,
        retries: client.stats.attempts - client.stats.operations,
      },
      reactor: { handled: reactor.status().handled, failures: reactor.status().failures.length },
    };
    console.log(`GitHub fault suite figures:\n${JSON.stringify(figures, null, 2)}`);

    expect(duplicates).toBe(0);
    expect(issues).toHaveLength(REQUESTS);
    expect(pulls).toHaveLength(REQUESTS);
    expect([...issuesPerRequest.keys()].sort()).toEqual([...requestIds].sort());
    expect([...pullsPerBranch.keys()].sort()).toEqual(
      requestIds.map((id) => `cogitave/${id}-p1`).sort(),
    );
    expect(pulls.every((pull) => pull.draft)).toBe(true);
    expect(faults / calls).toBeGreaterThan(0.2);
    for (const kind of [
      'error-after-write',
      'error-before-write',
      'timeout',
      'already-exists',
    ] as const) {
      expect(stats.faults[kind] ?? 0, kind).toBeGreaterThan(0);
    }
    expect(reactor.status().failures).toEqual([]);

    // Every request recorded its issue and pull request exactly once, with the real numbers.
    const byNumber = new Map([...issues, ...pulls].map((item) => [item.number, item]));
    for (const requestId of requestIds) {
      const events = await requestEvents(h, requestId);
      const opened = events.filter((e) => e.type === 'IntakeIssueOpened');
      const pr = events.filter((e) => e.type === 'ProposalPullRequestOpened');
      expect([opened.length, pr.length], requestId).toEqual([1, 1]);
      const issueNumber = (opened[0]!.data as { issueNumber: number }).issueNumber;
      const pullNumber = (pr[0]!.data as { pullNumber: number }).pullNumber;
      expect(markerIn(byNumber.get(issueNumber)?.body, 'request')).toBe(requestId);
      expect(markerIn(byNumber.get(pullNumber)?.body, 'proposal')).toBe(`${requestId}-p1`);
      expect(byNumber.get(pullNumber)?.body).toContain(`Refs #${issueNumber}`);
    }
    expect(h.double.violations).toEqual([]);
  });

  it('given the suite has run, when the reactor restarts from its checkpoint without faults, then nothing is written', async () => {
    const writes = { ...h.double.stats.writes };
    const reactor = h.reactor(h.client());
    reactor.start();
    await reactorCaughtUp(h, reactor);
    await reactor.stop();

    expect(h.double.stats.writes).toEqual(writes);
    expect(h.double.violations).toEqual([]);
  });
});
