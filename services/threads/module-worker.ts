import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `import.meta.resolve` where the runtime has it (Node); the bare name elsewhere. */
const resolveFromHere = (specifier: string): string => {
  const resolve = (import.meta as { resolve?: (name: string) => string }).resolve;
  return typeof resolve === 'function' ? resolve(specifier) : specifier;
};

/**
 * Starts a worker thread on a module beside `caller` (its `import.meta.url`), named without
 * extension. From TypeScript sources (tsx, vitest) the worker registers tsx's loader before
 * importing the `.ts` entry; from the build it loads the compiled `.js` directly. May throw
 * (no such module, no threads); a module that fails to load is an 'error' event.
 */
export const startModuleWorker = (
  caller: string,
  name: string,
  workerData: unknown,
  options: Pick<WorkerOptions, 'resourceLimits'> = {},
): Worker => {
  const fromSource = caller.endsWith('.ts');
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, caller);
  if (!fromSource) return new Worker(entry, { ...options, workerData });
  // Resolved here, in the project: the worker's own resolution starts at the working
  // directory, which need not be the project's.
  const loader = resolveFromHere('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(loader)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`,
    { ...options, eval: true, workerData },
  );
};
