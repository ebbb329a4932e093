import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_INCLUDE_DEPTH,
  readIncluded,
  rebaseLinks,
  type IncludeProblem,
} from '../../../services/catalog/docfx-include.js';

describe('rebaseLinks', () => {
  it.each([
    ['[a](../b.md#x)', 'docs/includes', 'docs/guide', '[a](../b.md#x)'],
    ['[a](other.md)', 'docs/includes', 'docs/guide', '[a](../includes/other.md)'],
    ['![img](media/a.png)', 'docs/includes', 'docs', '![img](includes/media/a.png)'],
    [
      '[a](~/x.md) [b](/abs) [c](#here) [d](https://e.org/x)',
      'a',
      'b',
      '[a](~/x.md) [b](/abs) [c](#here) [d](https://e.org/x)',
    ],
    [
      ':::image type="content" source="media/x.png" alt-text="x":::',
      'docs/inc',
      'docs',
      ':::image type="content" source="inc/media/x.png" alt-text="x":::',
    ],
    ['```md\n[a](b.md)\n```', 'x', 'y', '```md\n[a](b.md)\n```'],
  ])(
    'given %j written in %s, when it stands in %s, then it reads %j',
    (text, from, to, expected) => {
      expect(rebaseLinks(text, from, to)).toBe(expected);
    },
  );
});

describe('readIncluded', () => {
  let root: string;
  const write = async (file: string, text: string): Promise<void> => {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
  };
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'docfx-include-'));
    await write('docs/docfx.json', '{}');
    await write(
      'docs/includes/publish.md',
      '---\nms.topic: include\n---\nRun `dotnet publish -f net9.0-android`.\n\n[!INCLUDE [note](~/includes/note.md)]\n\nSee [signing](../android/signing.md).\n::: moniker range=">=net-maui-9.0"\nNew in 9.\n::: moniker-end\n',
    );
    await write('docs/includes/note.md', '> [!NOTE]\n> Keep the keystore safe.\n');
    await write('docs/includes/loop-a.md', '[!INCLUDE [b](loop-b.md)]\n');
    await write('docs/includes/loop-b.md', '[!INCLUDE [a](loop-a.md)]\n');
    for (let depth = 0; depth <= MAX_INCLUDE_DEPTH + 1; depth += 1)
      await write(`docs/deep/d${depth}.md`, `level ${depth}\n[!INCLUDE [n](d${depth + 1}.md)]\n`);
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it('given an include with front matter, a nested ~/ include, a link and a moniker zone, when read for a page elsewhere, then it is the text as Learn shows it', async () => {
    const problems: IncludeProblem[] = [];
    const text = await readIncluded(
      root,
      'docs/includes/publish.md',
      'docs/android/deployment/publish.md',
      'docs',
      problems,
    );
    expect(problems).toEqual([]);
    expect(text).toBe(
      'Run `dotnet publish -f net9.0-android`.\n\n> [!NOTE]\n> Keep the keystore safe.\n\nSee [signing](../signing.md).\n\nNew in 9.',
    );
  });

  it('given an include line inside a fenced block of an included file, when read, then it stays as written', async () => {
    await write('docs/includes/shows.md', '```md\n[!INCLUDE [note](note.md)]\n```\n');
    const problems: IncludeProblem[] = [];
    expect(
      await readIncluded(root, 'docs/includes/shows.md', 'docs/includes/page.md', 'docs', problems),
    ).toBe('```md\n[!INCLUDE [note](note.md)]\n```');
    expect(problems).toEqual([]);
  });

  it('given two includes that include each other, when read, then the cycle is reported and the text ends there', async () => {
    const problems: IncludeProblem[] = [];
    const text = await readIncluded(
      root,
      'docs/includes/loop-a.md',
      'docs/page.md',
      'docs',
      problems,
    );
    expect(text).toBe('');
    expect(problems.map((p) => p.reason)).toEqual([
      expect.stringContaining(
        'includes itself (docs/includes/loop-a.md → docs/includes/loop-b.md → docs/includes/loop-a.md)',
      ),
    ]);
  });

  it(`given includes nested deeper than ${MAX_INCLUDE_DEPTH}, when read, then the deepest level is reported, not read`, async () => {
    const problems: IncludeProblem[] = [];
    const text = await readIncluded(root, 'docs/deep/d0.md', 'docs/page.md', 'docs', problems);
    expect(text).toContain(`level ${MAX_INCLUDE_DEPTH - 1}`);
    expect(text).not.toContain(`level ${MAX_INCLUDE_DEPTH}\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.reason).toContain(`nested more than ${MAX_INCLUDE_DEPTH} deep`);
  });

  it('given a missing file, when read, then it is undefined and a missing nested one is a problem', async () => {
    expect(
      await readIncluded(root, 'docs/includes/none.md', 'docs/page.md', 'docs', []),
    ).toBeUndefined();
    await write('docs/includes/broken.md', 'text\n[!INCLUDE [x](gone.md)]\n');
    const problems: IncludeProblem[] = [];
    expect(
      await readIncluded(root, 'docs/includes/broken.md', 'docs/page.md', 'docs', problems),
    ).toBe('text');
    expect(problems[0]?.reason).toContain('not found (looked at docs/includes/gone.md)');
  });
});
