/**
 * Property tests (fast-check) in the unit tier run a fixed number of cases, never "as many as
 * fit in N ms", so what they check does not depend on how busy the machine is. Each property's
 * `numRuns` is chosen to take well under a second on a quiet machine; this timeout, for the
 * `it` of each property, only catches a hang: a loaded two-core machine runs them many times
 * slower than a quiet one, and the default five seconds would then fail a correct property.
 */
export const PROPERTY_TIMEOUT_MS = 30_000;
