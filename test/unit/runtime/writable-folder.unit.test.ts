import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isCogitaveError } from '../../../services/runtime/errors.js';
import { assertWritableFolder } from '../../../services/runtime/writable-folder.js';

/** The free-space check with an injected statfs: a full disk without mounting one. */
const root = mkdtempSync(join(tmpdir(), 'cogitave-folder-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const refusal = (free: number): unknown => {
  try {
    assertWritableFolder('COGITAVE_DATA_DIR', join(root, 'data'), {
      minFreeBytes: 64 * 1024 * 1024,
      statfs: () => ({ bavail: free / 4096, bsize: 4096 }),
    });
    return undefined;
  } catch (error) {
    return error;
  }
};

describe('assertWritableFolder', () => {
  it('given a disk with less free space than needed, when checked, then CONFIG_INVALID names the variable and both amounts', () => {
    const error = refusal(8 * 1024 * 1024);

    expect(isCogitaveError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as Error).message).toBe(
      `COGITAVE_DATA_DIR: only 8.0 MB free on the disk of ${join(root, 'data')} (at least 64.0 MB needed); free some space or point COGITAVE_DATA_DIR at another disk`,
    );
  });

  it('given enough free space, when checked, then it passes', () => {
    expect(refusal(65 * 1024 * 1024)).toBeUndefined();
  });
});
