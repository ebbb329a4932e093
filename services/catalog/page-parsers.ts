import { availableParallelism } from 'node:os';
import { runWorkerJob, WorkerUnavailable } from '../threads/worker-job.js';
import type { MarkdownFile } from './page-node.js';
import type { PageParseReply, PageParseRequest } from './page-worker.js';

/** Below this many pages, starting workers costs more than it saves. */
export const PARALLEL_PAGES_FROM = 256;
const MAX_WORKERS = 4;
const YOUNG_GENERATION_MB = 64;

/**
 * Parses a folder's Markdown/MDX pages in worker threads, one share per core (up to four):
 * parsing is most of an ingest's CPU, and the main thread only waits meanwhile. Undefined when
 * there are too few pages or cores for it to pay, or no worker could start: the caller then
 * parses in-process. Each share goes to a fresh worker that ends with its reply, so nothing of
 * the parse stays in memory.
 */
export const parsePagesInWorkers = async (
  root: string,
  pages: readonly { readonly file: string; readonly mdx: boolean }[],
  workers: number = Math.min(MAX_WORKERS, availableParallelism()),
): Promise<ReadonlyMap<string, MarkdownFile> | undefined> => {
  if (pages.length < PARALLEL_PAGES_FROM || workers < 2) return undefined;
  // Interleaved shares: a folder's long pages are often neighbours (one section of a site).
  const shares = Array.from({ length: workers }, (_, share) =>
    pages.filter((_page, index) => index % workers === share),
  );
  try {
    const replies = await Promise.all(
      shares.map((share) =>
        runWorkerJob<PageParseReply>(
          import.meta.url,
          'page-worker',
          { root, pages: share } satisfies PageParseRequest,
          [],
          // Parsing makes short-lived garbage by the megabyte: a larger young generation
          // collects it with fewer, cheaper scavenges.
          { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } },
        ),
      ),
    );
    return new Map(replies.flat());
  } catch (error) {
    if (error instanceof WorkerUnavailable) return undefined;
    throw error;
  }
};
