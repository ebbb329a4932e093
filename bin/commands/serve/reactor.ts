import { gaugeFamily, renderPrometheus } from '../../../projections/index.js';
import type { App } from '../../app.js';
import type { ServedPart } from './parts.js';

/**
 * The GitHub reactor: proposals become issues and draft pull requests. On server Postgres one
 * reactor leads (advisory lock) and the others stand by. In local approval mode there is none.
 */
export const reactorPart = (app: App): ServedPart => {
  const { github } = app;
  if (!github) {
    return {
      routes: [],
      readiness: [],
      describe: { approvals: 'local' },
      start: () => undefined,
      drain: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }
  return {
    routes: [],
    // Ready while the reactor runs (retrying GitHub or standing by included); not ready once it
    // has stopped for good. What an operator must act on (events it gave up on, merges whose
    // decision never arrived) is listed without making the process unready.
    readiness: [
      {
        name: 'github-reactor',
        probe: () => Promise.resolve(github.reactor.status().state !== 'stopped'),
        detail: () => {
          const status = github.reactor.status();
          return {
            state: status.state,
            ...(status.retrying ? { retrying: status.retrying } : {}),
            failures: status.failures.slice(0, 10),
            undecidedMerges: status.undecidedMerges,
          };
        },
      },
    ],
    metrics: () => {
      const status = github.reactor.status();
      const remaining = github.client.stats.rateLimitRemaining;
      return renderPrometheus([
        {
          name: 'cogitave_github_reactor_events_handled_total',
          help: 'Events the GitHub reactor handled (or skipped) since start.',
          type: 'counter',
          samples: [{ value: status.handled }],
        },
        gaugeFamily(
          'cogitave_github_reactor_caught_up',
          '1 when the GitHub reactor has handled every event in the log (its queue is empty).',
          status.caughtUp ? 1 : 0,
        ),
        gaugeFamily(
          'cogitave_github_reactor_retrying',
          'Attempts so far at the event the reactor is retrying; 0 when none is.',
          status.retrying?.attempt ?? 0,
        ),
        gaugeFamily(
          'cogitave_github_reactor_failures',
          'Events the reactor gave up on (listed in /readyz and github_reactor.failures).',
          status.failures.length,
        ),
        gaugeFamily(
          'cogitave_github_merges_awaiting_decision',
          'Proposal pull requests merged on GitHub whose decision the log does not hold yet (listed in /readyz).',
          status.undecidedMerges.length,
        ),
        gaugeFamily(
          'cogitave_github_merges_undelivered',
          'Of them, those waiting past the grace: the delivery of the merge was most likely lost; redeliver it.',
          status.undecidedMerges.filter((merge) => merge.overdue).length,
        ),
        ...(remaining === undefined
          ? []
          : [
              gaugeFamily(
                'cogitave_github_rate_limit_remaining',
                "GitHub's x-ratelimit-remaining on its newest answer.",
                remaining,
              ),
            ]),
      ]);
    },
    describe: { approvals: `github ${github.settings.repository}` },
    start: () => {
      github.reactor.start();
    },
    drain: () => Promise.resolve(),
    close: () => github.reactor.stop(),
  };
};
