/**
 * Fault injection: which calls fail, and how. Rules are consumed in the order they were
 * injected; the random mode draws from a seeded PRNG once per eligible call, so the same
 * sequence of calls gets the same faults on every run.
 */

export type FaultKind =
  /** Perform the call (the write happens), then answer 500/502: a retry would repeat it. */
  | 'error-after-write'
  /** Answer 500/502 without doing anything. */
  | 'error-before-write'
  /** Hold the request for `ms`, then destroy the socket (optionally after writing). */
  | 'timeout'
  /** 403 with `retry-after` and GitHub's secondary-rate-limit message. */
  | 'secondary-rate-limit'
  /** 429 with `retry-after` (GitHub's other answer when secondary limits trip). */
  | 'rate-limit-429'
  /** 403 with `x-ratelimit-remaining: 0` and `x-ratelimit-reset`: the primary limit. */
  | 'primary-rate-limit'
  /** The 422 GitHub gives when the thing being created already exists; nothing is written. */
  | 'already-exists';

export const FAULT_KINDS: readonly FaultKind[] = [
  'error-after-write',
  'error-before-write',
  'timeout',
  'secondary-rate-limit',
  'rate-limit-429',
  'primary-rate-limit',
  'already-exists',
];

/** A call as fault rules see it. */
export interface CallInfo {
  readonly method: string;
  /** The request path, without the query string, as sent (percent-encoded). */
  readonly path: string;
  readonly operationId: string;
  /** The operation's path template, e.g. `/repos/{owner}/{repo}/issues`. */
  readonly template: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

export interface FaultOptions {
  /** error kinds: the status to answer with. Default 500. */
  readonly status?: 500 | 502 | 503 | 504;
  /** `timeout`: how long to hold the request before destroying the socket. Default 1000 ms. */
  readonly ms?: number;
  /** `timeout`: perform the call first, so the write happened though no answer arrives. */
  readonly afterWrite?: boolean;
  /** Rate-limit kinds: seconds in `retry-after` (and until `x-ratelimit-reset`). Default 1. */
  readonly retryAfter?: number;
}

export interface FaultRule extends FaultOptions {
  readonly kind: FaultKind;
  /**
   * Which calls: an operation id (`issues/create`), or `METHOD path` where path is either the
   * documented template (`POST /repos/{owner}/{repo}/issues`) or a concrete path in which `*`
   * matches within a segment and `**` across segments (`PATCH /repos/acme/widgets/issues/*`).
   * Omitted: every call.
   */
  readonly operation?: string;
  /** A further predicate on the call. */
  readonly match?: (call: CallInfo) => boolean;
  /** How many matching calls get the fault. Default 1; `Infinity` for all of them. */
  readonly times?: number;
  /** Let this many matching calls through before faulting. Default 0. */
  readonly skip?: number;
}

export interface RandomFaults extends FaultOptions {
  /** Chance, per eligible call, of a fault. */
  readonly probability: number;
  readonly kinds: readonly FaultKind[];
  /** PRNG seed; the same seed and call sequence give the same faults. Default 1. */
  readonly seed?: number;
  /** Only these calls (same forms as `FaultRule.operation`). Default all. */
  readonly operations?: readonly string[];
}

export interface FaultHandle {
  /** How many calls this rule has faulted so far. */
  readonly fired: number;
  /** How many more it will fault. */
  readonly remaining: number;
  cancel(): void;
}

/** The fault decided for one call. */
export interface PlannedFault extends FaultOptions {
  readonly kind: FaultKind;
}

interface ActiveRule {
  readonly rule: FaultRule;
  remainingSkips: number;
  remaining: number;
  fired: number;
}

interface ActiveRandom {
  readonly options: RandomFaults;
  readonly next: () => number;
}

/** mulberry32: tiny, fast, and good enough to pick faults reproducibly. */
const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const globToRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split('**')
      .map((part) =>
        part
          .split('*')
          .map((text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]*'),
      )
      .join('.*')}$`,
  );

/** Whether a call is what an `operation` selector names. */
export const selects = (selector: string, call: CallInfo): boolean => {
  const space = selector.indexOf(' ');
  if (space === -1) return selector === call.operationId;
  const method = selector.slice(0, space).toUpperCase();
  const path = selector.slice(space + 1).trim();
  if (method !== call.method) return false;
  return path === call.template || globToRegExp(path).test(call.path);
};

const isWrite = (call: CallInfo): boolean => call.method !== 'GET' && call.method !== 'HEAD';

export class FaultController {
  private rules: ActiveRule[] = [];
  private randoms: ActiveRandom[] = [];

  /** Fault the next matching call(s). */
  inject(rule: FaultRule): FaultHandle {
    const active: ActiveRule = {
      rule,
      remainingSkips: rule.skip ?? 0,
      remaining: rule.times ?? 1,
      fired: 0,
    };
    this.rules.push(active);
    return {
      get fired() {
        return active.fired;
      },
      get remaining() {
        return active.remaining;
      },
      cancel: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  /** Fault eligible calls at random, reproducibly. Returns a function that stops it. */
  random(options: RandomFaults): () => void {
    const active: ActiveRandom = { options, next: mulberry32(options.seed ?? 1) };
    this.randoms.push(active);
    return () => {
      this.randoms = this.randoms.filter((r) => r !== active);
    };
  }

  /** Drop every rule and random mode. */
  clear(): void {
    this.rules = [];
    this.randoms = [];
  }

  /** The fault for this call, if any; consumes it. */
  take(call: CallInfo): PlannedFault | undefined {
    for (const active of this.rules) {
      const { rule } = active;
      if (active.remaining <= 0) continue;
      if (rule.operation !== undefined && !selects(rule.operation, call)) continue;
      if (rule.match && !rule.match(call)) continue;
      if (active.remainingSkips > 0) {
        active.remainingSkips -= 1;
        continue;
      }
      active.remaining -= 1;
      active.fired += 1;
      return rule;
    }
    for (const { options, next } of this.randoms) {
      if (options.operations && !options.operations.some((op) => selects(op, call))) continue;
      // Draw both numbers for every eligible call, so one call's outcome never shifts the
      // sequence the next call sees.
      const roll = next();
      const pick = next();
      if (roll >= options.probability || options.kinds.length === 0) continue;
      const kind = options.kinds[Math.floor(pick * options.kinds.length)]!;
      // "Already exists" only means something for a call that creates.
      if (kind === 'already-exists' && !isWrite(call)) continue;
      return { ...options, kind };
    }
    return undefined;
  }
}
