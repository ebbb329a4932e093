import { CogitaveError, isCogitaveError } from '../../services/runtime/errors.js';

/**
 * The REST surface runs tools with `runTool` (registry.ts) — the same access decision,
 * validation and messages as the MCP server — and answers every failure as a `CogitaveError`,
 * whose code picks the problem's HTTP status.
 */

/** Anything thrown by a handler, as a coded error (unknown failures are INTERNAL). */
export const toCogitaveError = (error: unknown): CogitaveError =>
  isCogitaveError(error)
    ? error
    : new CogitaveError(
        'INTERNAL',
        'The tool failed unexpectedly; see the server log.',
        {},
        {
          cause: error,
        },
      );
