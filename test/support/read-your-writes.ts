import type { ReadYourWrites } from '../../mcp-gateway/read-your-writes.js';

/** For tests and benchmarks of single tools on partial services: no read model to wait for. */
export const IGNORE_WRITES: ReadYourWrites = {
  wrote: () => undefined,
  caughtUp: () => Promise.resolve(),
};
