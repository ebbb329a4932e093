import { describe, expect, it } from 'vitest';
import { formatSkipped } from '../../../bin/commands/catalog-output.js';

describe('formatSkipped', () => {
  it('given hundreds of files skipped for one reason and two for another, when printed, then the many are one line with a count and the few are listed', () => {
    const samples = Array.from({ length: 420 }, (_, i) => ({
      file: `samples/core/Program${i}.cs`,
      reason: 'not a Markdown or MDX page',
      fix: 'nothing to do',
    }));
    const lines = formatSkipped([
      ...samples,
      { file: 'docs/sidebars.js', reason: 'site configuration' },
      { file: 'website/sidebars.json', reason: 'site configuration' },
    ]);
    expect(lines).toEqual([
      '  420 × not a Markdown or MDX page (nothing to do), e.g. samples/core/Program0.cs, samples/core/Program1.cs, samples/core/Program2.cs',
      '  docs/sidebars.js: site configuration',
      '  website/sidebars.json: site configuration',
    ]);
  });

  it('given no skipped file, when printed, then nothing is printed', () => {
    expect(formatSkipped([])).toEqual([]);
  });
});
