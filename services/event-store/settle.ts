import { comparePositions } from './position.js';
import type { EventStore } from './types.js';

/**
 * The global log shows an event once every transaction that began before it has ended (so a
 * subscriber never skips a late commit); a read right after an append, while a projector
 * or another writer is mid-transaction, may not show it yet. A decision that must see
 * everything committed (which nodes a source holds) waits for that first. False: the log was
 * still held back after `timeoutMs` (a long transaction); what is visible is all there is.
 */
export const settleLog = async (
  store: Pick<EventStore, 'lastPosition' | 'readAll'>,
  { timeoutMs = 15_000, pollMs = 20 }: { timeoutMs?: number; pollMs?: number } = {},
): Promise<boolean> => {
  const last = await store.lastPosition();
  if (last === null) return true;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [newest] = await store.readAll({ direction: 'backwards', maxCount: 1 });
    if (newest && comparePositions(newest.position, last) >= 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
};
