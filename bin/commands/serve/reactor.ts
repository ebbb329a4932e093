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
    // has stopped for good.
    readiness: [
      {
        name: 'github-reactor',
        probe: () => Promise.resolve(github.reactor.status().state !== 'stopped'),
      },
    ],
    describe: { approvals: `github ${github.settings.repository}` },
    start: () => {
      github.reactor.start();
    },
    drain: () => Promise.resolve(),
    close: () => github.reactor.stop(),
  };
};
