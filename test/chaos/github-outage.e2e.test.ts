import { describe, expect, it } from 'vitest';
import { runGitHubOutage } from './github-outage.js';

/**
 * GitHub down while agents propose (CHAOS_GITHUB_OUTAGE_MS, default 10 s here; the soak
 * script `test/soak/github-outage.ts` holds it down for a minute): proposals stage, and once
 * GitHub is back the reactor opens exactly one issue per intake and one draft pull request per
 * stage proposal.
 */
const OUTAGE_MS = Number(process.env.CHAOS_GITHUB_OUTAGE_MS ?? 10_000);

describe('GitHub down while proposals arrive', () => {
  it('given every GitHub call fails (503 or a dropped connection), when agents propose intakes and stage changes, then they stage as drafts and, once GitHub is back, the reactor catches up with exactly one issue or pull request each', async () => {
    const report = await runGitHubOutage({ outageMs: OUTAGE_MS, intakes: 4, stageProposals: 2 });

    // Proposals staged during the outage: drafts readable through MCP, events appended.
    expect(report.draftsDuringOutage).toEqual(
      report.requestIds.map((requestId) => ({ requestId, stage: 'proposed', status: 'draft' })),
    );
    expect(report.faultedCalls).toBeGreaterThan(0);

    // Caught up with exactly one GitHub object per proposal, each recorded once.
    expect(report.issues).toBe(4);
    expect(report.pullRequests).toBe(2);
    expect([...report.issueMarkers].sort()).toEqual([...report.requestIds].sort());
    expect([...report.pullHeads].sort()).toEqual(
      report.proposalIds.map((id) => `cogitave/${id}`).sort(),
    );
    expect(report.writes['issues/create']).toBe(4);
    expect(report.writes['pulls/create']).toBe(2);
    for (const [index, requestId] of report.requestIds.entries()) {
      const types = report.streams[requestId] ?? [];
      expect(
        types.filter((type) => type === 'IntakeIssueOpened'),
        requestId,
      ).toHaveLength(1);
      expect(
        types.filter((type) => type === 'ProposalPullRequestOpened'),
        requestId,
      ).toHaveLength(index < 2 ? 1 : 0);
    }
    expect(report.violations).toEqual([]);
  });
});
