/**
 * Nesting bounds for what clients send: a value nested thousands of levels deep would overflow
 * the stack of any recursive walk (schema validation, text checks) and come back as an internal
 * error. It is refused up front, with an iterative walk that cannot overflow.
 */

/** A whole JSON-RPC message (envelope, params, `_meta`, arguments). */
export const MAX_MESSAGE_DEPTH = 64;
/** One tool call's arguments: far above what any tool's input schema describes. */
export const MAX_ARGUMENT_DEPTH = 32;

/** Whether `value` has arrays or objects nested more than `limit` levels deep. */
export const exceedsDepth = (value: unknown, limit: number): boolean => {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      stack.push([child, depth + 1]);
  }
  return false;
};
