/** Whitespace a one-line text must not keep: other than single spaces, or at an end. */
const UNTIDY_SPACE = /[^\S ]| {2}|^ | $/;
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/**
 * `text` as one line (whitespace runs become one space, ends trimmed) of at most `max` UTF-16
 * units, cut with "…" when longer. The cut never falls inside a surrogate pair: half an emoji
 * is a lone surrogate, which JSON can carry but Postgres' json and jsonb refuse.
 */
export const oneLine = (text: string, max: number): string => {
  // Most texts are tidy already; testing is cheaper than rewriting (a replay does it per event).
  const line = UNTIDY_SPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
  if (line.length <= max) return line;
  const keep = HIGH_SURROGATE.test(line.charAt(max - 2)) ? max - 2 : max - 1;
  return `${line.slice(0, keep)}…`;
};
