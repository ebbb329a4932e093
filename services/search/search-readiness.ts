import { Unavailable } from '../runtime/errors.js';
import type { SearchIndexes } from './search-indexes.js';

/**
 * Whether a search may run: the docs' index waits for its first build (at most `readyWaitMs`,
 * then UNAVAILABLE; a failed build is retried by the next search), and the code samples'
 * index is built by the first search that needs it and kept current from then on.
 */
export class SearchReadiness {
  #attempt: Promise<void>;
  #samplesAttempt: Promise<void> | undefined;

  constructor(
    private readonly indexes: SearchIndexes,
    firstBuild: Promise<void>,
    private readonly readyWaitMs: number,
  ) {
    // If the first build fails (read model not there yet), the next search or change retries.
    this.#attempt = firstBuild;
    this.#attempt.catch(() => undefined);
  }

  // Functions, so the compiler does not take their values as fixed across awaits.
  #isBuilt(): boolean {
    return this.indexes.built.docs;
  }

  #samplesBuilt(): boolean {
    return this.indexes.built.samples;
  }

  /**
   * Waits for a build, at most `readyWaitMs`: "late" when it is still running then; a
   * failed build rejects with its error.
   */
  async #within(build: Promise<void>): Promise<'done' | 'late'> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => {
        resolve('late');
      }, this.readyWaitMs);
    });
    try {
      return await Promise.race([build.then(() => 'done' as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  #waited(): string {
    return `waited ${String(Math.round(this.readyWaitMs / 1000))} s`;
  }

  /** Resolves once the docs' index is built; rejects (Unavailable) while it is not. */
  async whenReady(): Promise<void> {
    if (this.#isBuilt()) return;
    try {
      if ((await this.#within(this.#attempt)) === 'late' && !this.#isBuilt()) {
        throw new Unavailable(
          `the search index is still being built (the catalog is being ingested at start-up); ${this.#waited()}, retry shortly`,
        );
      }
    } catch (error) {
      if (error instanceof Unavailable) throw error;
      if (this.#isBuilt()) return;
      this.#attempt = this.indexes.enqueue(() => this.indexes.reloadAll());
      this.#attempt.catch(() => undefined);
      throw new Unavailable(
        `the search index is not built (catalog read model unreadable: ${(error as Error).message}); retrying`,
      );
    }
  }

  /** Resolves once the code samples' index is built, starting its build when none runs. */
  async samplesReady(): Promise<void> {
    await this.whenReady();
    if (this.#samplesBuilt()) return;
    let current = this.#samplesAttempt;
    if (!current) {
      this.indexes.samplesWanted = true;
      const started = this.indexes.enqueue(() => this.indexes.reloadKind('samples'));
      current = this.#samplesAttempt = started;
      // A failed build is retried by the next search that needs it.
      started.catch(() => {
        if (this.#samplesAttempt === started) this.#samplesAttempt = undefined;
      });
    }
    try {
      if ((await this.#within(current)) === 'late' && !this.#samplesBuilt()) {
        throw new Unavailable(
          `the code samples' index is being built (the first search of code samples builds it); ${this.#waited()}, retry shortly`,
        );
      }
    } catch (error) {
      if (error instanceof Unavailable) throw error;
      if (this.#samplesBuilt()) return;
      throw new Unavailable(
        `the code samples' index is not built (catalog read model unreadable: ${(error as Error).message}); retrying`,
      );
    }
  }
}
