/** Sends one `notifications/progress` for the request (a no-op without a progress token). */
export type ProgressSender = (progress: number, total?: number, message?: string) => Promise<void>;

/**
 * MCP requires a request's progress to increase with every notification, but a call reports
 * from several places that each count from 0 (the start-up wait, the read-your-writes wait,
 * the tool's own steps). A value not above the last one is shifted up, and its total with it,
 * so the client sees one increasing sequence and each fraction still reads right.
 */
export const increasingProgress = (send: ProgressSender): ProgressSender => {
  let last: number | undefined;
  let offset = 0;
  return (progress, total, message) => {
    let value = progress + offset;
    if (last !== undefined && value <= last) {
      offset += last + 1 - value;
      value = last + 1;
    }
    last = value;
    return send(value, total === undefined ? undefined : total + offset, message);
  };
};
