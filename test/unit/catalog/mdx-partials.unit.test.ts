import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partialUses } from '../../../services/catalog/mdx-partial-uses.js';
import { inlinePartials } from '../../../services/catalog/mdx-partials.js';

const PAGE = `import TypeScriptNote from './_TypeScriptNote.md';
import Tabs from '@theme/Tabs';

# Mock functions

<TypeScriptNote />

\`\`\`mdx
import Fake from './_fake.md';
<Fake />
\`\`\`

<Tabs />
  <Shared />
`;

describe('partialUses', () => {
  it('given a page importing a Markdown partial and a component, when scanned, then only the partial’s own line is a use (never inside code)', () => {
    expect(partialUses(PAGE)).toEqual([{ line: 6, indent: '', target: './_TypeScriptNote.md' }]);
  });
});

describe('inlinePartials', () => {
  let root: string;
  const write = async (file: string, text: string): Promise<void> => {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
  };
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mdx-partials-'));
    await write(
      'docs/api/_TypeScriptNote.md',
      ":::info\n\nImport the APIs explicitly, see [types](GettingStarted.md#types):\n\n```ts\nimport {expect, jest} from '@jest/globals';\n```\n\n:::\n\nimport Footer from '@site/src/_footer.mdx';\n\n<Footer />\n",
    );
    await write(
      'website/src/_footer.mdx',
      'Questions? Ask on [Discord](/help) or read [the FAQ](faq.md).\n',
    );
    await write('docs/_a.md', "import B from './_b.md';\n\n<B />\n");
    await write('docs/_b.md', "import A from './_a.md';\n\n<A />\n");
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it('given a partial with a container, a code block that imports, and a nested @site partial, when inlined into a page in another folder, then it reads as rendered and its links are rebased', async () => {
    const { inlined, problems } = await inlinePartials(
      root,
      'docs/api/MockFunctions.md',
      partialUses(PAGE),
      'website',
    );
    expect(problems).toEqual([]);
    expect(inlined).toEqual([
      {
        line: 6,
        language: '',
        markdown: true,
        code: "**Info**\n\nImport the APIs explicitly, see [types](GettingStarted.md#types):\n\n```ts\nimport {expect, jest} from '@jest/globals';\n```\n\n\n\n\n\nQuestions? Ask on [Discord](/help) or read [the FAQ](../../website/src/faq.md).",
      },
    ]);
  });

  it('given partials that import each other, when inlined, then the cycle is a problem on the page line and nothing loops', async () => {
    const { problems } = await inlinePartials(
      root,
      'docs/page.md',
      [{ line: 3, indent: '', target: './_a.md' }],
      '',
    );
    expect(problems).toEqual([
      expect.objectContaining({
        line: 3,
        reason: expect.stringContaining('imports itself') as unknown,
      }),
    ]);
  });

  it('given an import of a partial that is not there, when inlined, then a problem names the file looked at', async () => {
    const { inlined, problems } = await inlinePartials(
      root,
      'docs/page.md',
      [{ line: 9, indent: '', target: './_gone.md' }],
      '',
    );
    expect(inlined).toEqual([]);
    expect(problems[0]).toMatchObject({ line: 9 });
    expect(problems[0]?.reason).toContain('looked at docs/_gone.md');
  });
});
