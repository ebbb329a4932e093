import type { Transferable, WorkerOptions } from 'node:worker_threads';
import { startModuleWorker } from './module-worker.js';

/** No worker could run the job: the caller may run it in-process instead. */
export class WorkerUnavailable extends Error {
  readonly code = 'WORKER_UNAVAILABLE';
}

/**
 * Runs one job in a fresh worker thread on the module `name` beside `caller`: posts `request`
 * (moving `transfer`), resolves with the worker's one reply and ends the worker, so nothing
 * the job allocated outlives it (a kept worker held its heap, hundreds of MB after fitting a
 * large corpus). A worker that cannot start or load, or exits without replying, rejects with
 * `WorkerUnavailable`; an error the job throws rejects as itself.
 */
export const runWorkerJob = <Result>(
  caller: string,
  name: string,
  request: unknown,
  transfer: readonly Transferable[] = [],
  options: Pick<WorkerOptions, 'resourceLimits'> = {},
): Promise<Result> =>
  new Promise<Result>((resolve, reject) => {
    let settled = false;
    let worker: ReturnType<typeof startModuleWorker>;
    try {
      worker = startModuleWorker(caller, name, undefined, options);
    } catch (error) {
      reject(new WorkerUnavailable(`cannot start the ${name} worker: ${(error as Error).message}`));
      return;
    }
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      void worker.terminate();
      return true;
    };
    worker.on('message', (result: Result) => {
      if (settle()) resolve(result);
    });
    // Always listened to, also after settling: an 'error' with no listener would throw here.
    worker.on('error', (error: Error) => {
      if (!settle()) return;
      // Loading failures (module not found, unknown extension) mean no worker; anything else
      // is a failure of the job itself.
      const code = (error as { code?: unknown }).code;
      reject(
        typeof code === 'string' && /^ERR_(MODULE|UNKNOWN_FILE|WORKER)/.test(code)
          ? new WorkerUnavailable(error.message)
          : error,
      );
    });
    worker.on('exit', (exitCode) => {
      if (settle()) {
        reject(
          new WorkerUnavailable(`the ${name} worker exited with code ${exitCode} before replying`),
        );
      }
    });
    worker.postMessage(request, [...transfer]);
  });
