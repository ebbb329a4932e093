// Version folders: which names are versions, which are released, and their order.

/** A folder name that names a version: a date, a release number, or a pre-release channel. */
export const VERSION_NAME =
  /^(?:version-)?(?:\d{4}-\d{2}(?:-\d{2})?|v\d+(?:\.(?:\d+|x))*(?:-[a-z0-9.]+)?|\d+\.(?:\d+|x)(?:\.(?:\d+|x))*(?:-[a-z0-9.]+)?|draft|next|current|preview|unreleased|canary|latest)$/i;

const UNRELEASED =
  /^(draft|next|current|preview|unreleased|canary)$|-(alpha|beta|rc|pre|preview|next|canary)/i;

export const monikerOf = (folder: string): string => folder.replace(/^version-/i, '').toLowerCase();

export const isReleased = (moniker: string): boolean => !UNRELEASED.test(moniker);

const numericParts = (moniker: string): number[] =>
  moniker
    .replace(/^v/, '')
    .split(/[.-]/)
    .map((part) => (part === 'x' ? Number.MAX_SAFE_INTEGER : Number(part)))
    .map((n) => (Number.isFinite(n) ? n : -1));

/** Newest first: released before unreleased, then by date or release number, descending. */
export const compareMonikers = (a: string, b: string): number => {
  const released = Number(isReleased(b)) - Number(isReleased(a));
  if (released !== 0) return released;
  const x = numericParts(a);
  const y = numericParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i += 1) {
    const d = (y[i] ?? -1) - (x[i] ?? -1);
    if (d !== 0) return d;
  }
  return a < b ? -1 : a > b ? 1 : 0;
};
