/**
 * Runs `send` at most once per `spacingMs`: the first request at once, later ones within the
 * window folded into one run at its end. For notifications that say only "something changed"
 * (`notifications/resources/list_changed`): a burst of intakes then costs each session one
 * notification per window instead of one per change, and the last change is never dropped.
 */
export interface Spaced {
  request(): void;
  /** Drops a pending run (the session closed). */
  stop(): void;
}

export const spaced = (
  spacingMs: number,
  send: () => void,
  now: () => number = () => performance.now(),
): Spaced => {
  let last = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = (): void => {
    timer = undefined;
    last = now();
    send();
  };
  return {
    request: () => {
      if (stopped || timer !== undefined) return;
      const wait = last + spacingMs - now();
      if (wait <= 0) {
        run();
        return;
      }
      timer = setTimeout(run, wait);
      timer.unref();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
};
