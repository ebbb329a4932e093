export {
  EsdbDouble,
  type EsdbDoubleOptions,
  type Violation,
  type ViolationKind,
} from './server.js';
export { EsdbLog, INT64_MAX, type EsdbLogOptions, type LogRecord } from './log.js';
export { FaultController, type FaultHandle, type FaultRule } from './faults.js';

import { EsdbDouble, type EsdbDoubleOptions } from './server.js';

/** Starts a double on a free port of 127.0.0.1. */
export const startEsdbDouble = (options: EsdbDoubleOptions = {}): Promise<EsdbDouble> =>
  EsdbDouble.start(options);
export { createTestCertificate, type TestCertificate } from './tls.js';
