import { afterEach, describe, expect, it } from 'vitest';
import { loadCorpus } from '../../../services/catalog/corpus.js';
import { makeCorpus, type CorpusFolder } from './fixtures.js';

/** A DocFX folder whose docfx.json is in a subfolder: code references read in full. */
const PROGRAM = [
  'namespace Demo;',
  'class Program',
  '{',
  '    // <Main>',
  '    static void Main() => Greeter.SayHelloToTheWorld();',
  '    // </Main>',
  '    #region Extra',
  '    static void Extra() => Greeter.Wave();',
  '    #endregion',
  '}',
].join('\n');

const FILES: Record<string, string> = {
  'docs/docfx.json': '{ "build": { "content": [{ "files": ["**/*.md"] }] } }\n',
  'docs/snippets/Program.cs': PROGRAM,
  'docs/includes/note.md': 'A shared note.\n',
  'docs/articles/intro.md': [
    '# Intro',
    '',
    '## Start',
    '',
    'The entry point:',
    '',
    '[!code-csharp[Main](../snippets/Program.cs?name=Main)]',
    '',
    '[!INCLUDE [note](~/includes/note.md)]',
    '',
    '## More',
    '',
    ':::code language="csharp" source="~/snippets/Program.cs" id="Extra" highlight="1":::',
    '',
    '[!code-csharp[](../snippets/Program.cs?name=Missing)]',
    '',
    '[!code-csharp[](~/snippets/Gone.cs)]',
    '',
    'The end.',
  ].join('\n'),
};

describe('DocFX code references in a corpus', () => {
  let corpus: CorpusFolder | undefined;
  afterEach(async () => {
    await corpus?.cleanup();
  });

  it('puts the code in its section text and makes it a CodeSample; ~/ is the docfx.json folder', async () => {
    corpus = await makeCorpus(FILES);
    const loaded = await loadCorpus(corpus.dir, { checkSamples: false });
    expect(loaded.errors).toEqual([]);
    const page = loaded.nodes.find((n) => n.sourcePath === 'docs/articles/intro.md');
    expect(page).toBeDefined();
    const body = page?.body ?? '';
    expect(body).toContain('```csharp\nstatic void Main() => Greeter.SayHelloToTheWorld();\n```');
    expect(body).toContain('```csharp\nstatic void Extra() => Greeter.Wave();\n```');
    expect(body).not.toContain('[!code');
    expect(body).not.toContain(':::code');
    const more = page?.sections?.find((s) => s.anchor === 'more');
    const start = page?.sections?.find((s) => s.anchor === 'start');
    expect(body.slice(more?.offset ?? 0).startsWith('## More')).toBe(true);
    expect(body.slice(start?.offset ?? 0, more?.offset)).toContain('SayHelloToTheWorld');

    const samples = loaded.nodes.filter((n) => n.label === 'CodeSample');
    expect(samples.map((s) => [s.attributes.language, s.body, s.sourcePath])).toEqual([
      [
        'csharp',
        'static void Main() => Greeter.SayHelloToTheWorld();\n',
        'docs/snippets/Program.cs',
      ],
      ['csharp', 'static void Extra() => Greeter.Wave();\n', 'docs/snippets/Program.cs'],
    ]);
    expect(samples[0]?.attributes).toMatchObject({
      section: 'start',
      caption: 'Main',
      snippet: 'Main',
    });
    expect(samples[1]?.attributes).toMatchObject({ section: 'more', highlight: '1' });

    // The ~/ include resolves against docs/ (the docfx.json folder), so it is not reported.
    expect(loaded.warnings.map((w) => [w.line, w.reason])).toEqual([
      [15, expect.stringContaining('has no snippet "Missing"') as string],
      [17, expect.stringContaining('not found (looked at docs/snippets/Gone.cs)') as string],
    ]);
    expect(loaded.warnings.every((w) => w.file === 'docs/articles/intro.md' && w.fix)).toBe(true);
    expect(loaded.skipped.map((s) => s.file)).not.toContain('docs/includes/note.md');
  });
});
