import { compareMonikers } from './site-versions.js';

// Microsoft Learn moniker ranges (`>=net-maui-9.0`, `<=net-maui-9.0 || =net-maui-11.0`) and the
// `::: moniker range="…"` … `::: moniker-end` zones that scope a page's content to them.

export type MonikerOperator = '>=' | '<=' | '>' | '<' | '=';

export interface MonikerCondition {
  readonly operator: MonikerOperator;
  readonly moniker: string;
}

/** Alternatives (`||`), each a conjunction (space-separated) of conditions. */
export type MonikerRange = readonly (readonly MonikerCondition[])[];

export type ParsedRange =
  | { readonly ok: true; readonly range: MonikerRange }
  | { readonly ok: false; readonly reason: string };

const CONDITION = /^(>=|<=|>|<|=)?([a-z0-9][a-z0-9._-]*)$/;

/** Parses a range; a bare name means `=name`. Names are lower-cased, as Learn compares them. */
export const parseMonikerRange = (text: string): ParsedRange => {
  const alternatives = text
    .toLowerCase()
    .replace(/(>=|<=|>|<|=)\s+/g, '$1')
    .split('||')
    .map((part) => part.trim());
  const range: MonikerCondition[][] = [];
  for (const alternative of alternatives) {
    if (alternative === '') return { ok: false, reason: `empty alternative in "${text}"` };
    const conditions: MonikerCondition[] = [];
    for (const term of alternative.split(/\s+/)) {
      const match = CONDITION.exec(term);
      if (!match?.[2]) {
        return { ok: false, reason: `"${term}" is not a moniker condition (>=name, <name, name)` };
      }
      conditions.push({ operator: (match[1] ?? '=') as MonikerOperator, moniker: match[2] });
    }
    range.push(conditions);
  }
  return { ok: true, range };
};

/** The product part of a moniker (`net-maui` of `net-maui-9.0`): versions compare within it. */
export const monikerFamily = (moniker: string): string =>
  moniker.replace(/-?v?\d+(?:\.(?:\d+|x))*(?:-[a-z0-9.]+)?$/i, '');

const holds = (condition: MonikerCondition, moniker: string): boolean => {
  if (condition.operator === '=') return moniker === condition.moniker;
  if (monikerFamily(moniker) !== monikerFamily(condition.moniker)) return false;
  // compareMonikers sorts newest first: negative when `moniker` is newer.
  const order = compareMonikers(moniker, condition.moniker);
  switch (condition.operator) {
    case '>=':
      return order <= 0;
    case '>':
      return order < 0;
    case '<=':
      return order >= 0;
    case '<':
      return order > 0;
  }
};

export const inRange = (range: MonikerRange, moniker: string): boolean =>
  range.some((conditions) => conditions.every((condition) => holds(condition, moniker)));

/** The monikers a range names, whatever its operators. */
export const monikersNamed = (range: MonikerRange): string[] =>
  range.flatMap((conditions) => conditions.map((condition) => condition.moniker));

/** Oldest first (`net-maui-8.0`, `net-maui-9.0`, `net-maui-10.0`), as a site lists them. */
export const sortMonikersAscending = (monikers: Iterable<string>): string[] =>
  [...new Set(monikers)].sort((a, b) => compareMonikers(b, a));

export interface MonikerZone {
  readonly range: string;
  /** 0-based lines of the opening and closing markers (the closing one past the end if absent). */
  readonly openLine: number;
  readonly closeLine: number;
}

const ZONE_OPEN = /^\s*:::\s*moniker\s+range\s*=\s*["']([^"']*)["']\s*$/i;
const ZONE_CLOSE = /^\s*:::\s*moniker-end\s*$/i;
const FENCE = /^\s*(`{3,}|~{3,})/;

/** Whether a line is a zone marker (the dialect rewriter blanks these). */
export const isMonikerMarker = (line: string): boolean =>
  ZONE_OPEN.test(line) || ZONE_CLOSE.test(line);

/** The zones of a page body, outside fenced code; zones do not nest on Learn. */
export const findMonikerZones = (text: string): MonikerZone[] => {
  if (!/moniker/i.test(text)) return [];
  const lines = text.split(/\r?\n/);
  const zones: MonikerZone[] = [];
  let fence: string | undefined;
  let open: { range: string; line: number } | undefined;
  lines.forEach((line, index) => {
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker.startsWith(fence)) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const opening = ZONE_OPEN.exec(line);
    if (opening) {
      if (open) zones.push({ range: open.range, openLine: open.line, closeLine: index });
      open = { range: opening[1] ?? '', line: index };
    } else if (open && ZONE_CLOSE.test(line)) {
      zones.push({ range: open.range, openLine: open.line, closeLine: index });
      open = undefined;
    }
  });
  if (open) zones.push({ range: open.range, openLine: open.line, closeLine: lines.length });
  return zones;
};
