import { describe, expect, it } from 'vitest';
import { createReadYourWrites } from '../../../mcp-gateway/read-your-writes.js';
import { encodePosition } from '../../../services/event-store/position.js';

const at = (n: number) => encodePosition(1n, BigInt(n));

/** A read model whose waits are recorded and answered by the test. */
const recording = () => {
  const waits: { projection: string; position: string }[] = [];
  const tracker = createReadYourWrites({
    waitForPosition: (projection, position) => {
      waits.push({ projection, position });
      return Promise.resolve(true);
    },
    maxCallers: 2,
  });
  return { waits, tracker };
};

describe('read-your-writes tracker', () => {
  it('given a caller wrote twice to one projection, when it reads, then it waits once for the newer position', async () => {
    const { waits, tracker } = recording();
    tracker.wrote('a', 'requests', at(5));
    tracker.wrote('a', 'requests', at(3));
    await tracker.caughtUp('a');
    expect(waits).toEqual([{ projection: 'requests', position: at(5) }]);
  });

  it('given a wait ended, when the caller reads again, then it waits for nothing', async () => {
    const { waits, tracker } = recording();
    tracker.wrote('a', 'requests', at(1));
    tracker.wrote('a', 'networks', at(2));
    await tracker.caughtUp('a');
    await tracker.caughtUp('a');
    expect(waits.map((wait) => wait.projection).sort()).toEqual(['networks', 'requests']);
  });

  it('given writes of other callers, when a caller that wrote nothing reads, then it waits for nothing', async () => {
    const { waits, tracker } = recording();
    tracker.wrote('a', 'requests', at(1));
    await tracker.caughtUp('b');
    expect(waits).toEqual([]);
  });

  it('given more callers than it keeps, when the oldest reads, then it was forgotten (bounded memory)', async () => {
    const { waits, tracker } = recording();
    tracker.wrote('a', 'requests', at(1));
    tracker.wrote('b', 'requests', at(2));
    tracker.wrote('c', 'requests', at(3));
    await tracker.caughtUp('a');
    await tracker.caughtUp('c');
    expect(waits).toEqual([{ projection: 'requests', position: at(3) }]);
  });
});
