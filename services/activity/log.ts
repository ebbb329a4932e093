import type { AppendObserver } from '../event-store/observed.js';
import { logActivity } from '../runtime/activity.js';
import type { Logger } from '../runtime/logger.js';
import { activityOfAppend, type LocalChannel } from './committed.js';

/** Ids of events already logged, remembered so that a command retried here logs once. */
const REMEMBERED_IDS = 4096;

/**
 * The append observer that writes proposals and decisions to the activity log. Only the process
 * that appended an event logs it, so a line appears once however many processes share the log
 * (no reader logs what another process wrote). A command retried with the same id is answered
 * by the store as an idempotent success: its events, already logged here, log nothing again.
 */
export const activityAppendObserver = (logger: Logger, local: LocalChannel): AppendObserver => {
  const logged = new Set<string>();
  return (_streamId, events) => {
    try {
      for (const { eventId, line } of activityOfAppend(events, local)) {
        if (logged.has(eventId)) continue;
        logged.add(eventId);
        if (logged.size > REMEMBERED_IDS) {
          const oldest = logged.values().next().value;
          if (oldest !== undefined) logged.delete(oldest);
        }
        logActivity(logger, line);
      }
    } catch (error) {
      // A line that cannot be shaped must not fail a write that has committed.
      logger.warn({ err: error }, 'activity line not written');
    }
  };
};
