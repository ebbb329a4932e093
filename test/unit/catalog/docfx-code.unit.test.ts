import { describe, expect, it } from 'vitest';
import { inlineCode } from '../../../services/catalog/docfx-code-inline.js';
import {
  codeReferenceOf,
  dedentLines,
  extractCode,
  parseCodeIncludeLine,
  snippetMarker,
  type CodeReference,
} from '../../../services/catalog/docfx-code.js';

/** DocFX / Learn code references: syntax, snippet markers, ranges, dedent, inlining. */
const reference = (target: string, language = 'csharp'): CodeReference => {
  const parsed = codeReferenceOf({ source: target, syntax: '[!code]' }, language);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
};

const PROGRAM = [
  'using System;',
  '',
  'namespace Demo',
  '{',
  '    class Program',
  '    {',
  '        // <Main>',
  '        static void Main()',
  '        {',
  '            // <Greeting>',
  '            Console.WriteLine("Hello");',
  '            // </Greeting>',
  '        }',
  '        // </Main>',
  '',
  '        #region Helpers',
  '        static int Twice(int x) => x * 2;',
  '        #region Inner',
  '        static int Thrice(int x) => x * 3;',
  '        #endregion',
  '        #endregion',
  '    }',
  '}',
].join('\n');

describe('parsing DocFX code references', () => {
  it('reads the language, title and target of a [!code-…] line, and leaves other lines alone', () => {
    expect(parseCodeIncludeLine('[!code-csharp[Main](../snippets/Program.cs?name=Main)]')).toEqual({
      language: 'csharp',
      title: 'Main',
      target: '../snippets/Program.cs?name=Main',
    });
    expect(parseCodeIncludeLine('  [!code[](~/a/b c/file.vb#L3-L5)]')).toEqual({
      language: undefined,
      title: '',
      target: '~/a/b c/file.vb#L3-L5',
    });
    expect(parseCodeIncludeLine('See [the code](Program.cs).')).toBeUndefined();
    expect(parseCodeIncludeLine('[!INCLUDE [x](~/includes/x.md)]')).toBeUndefined();
  });

  it('splits name, range, highlight and dedent from the query and the fragment', () => {
    expect(reference('Program.cs?name=Main&highlight=2-3&dedent=4')).toMatchObject({
      path: 'Program.cs',
      snippet: 'Main',
      range: undefined,
      highlight: '2-3',
      dedent: 4,
    });
    expect(reference('Program.cs#L10-L20')).toMatchObject({ snippet: undefined, range: '10-20' });
    expect(reference('Program.cs#L7')).toMatchObject({ range: '7-7' });
    expect(reference('Program.cs?range=1-3,5,7-&highlight=1#Helpers')).toMatchObject({
      path: 'Program.cs',
      snippet: 'Helpers',
      range: '1-3,5,7-',
      highlight: '1',
    });
    expect(codeReferenceOf({ source: 'a.cs?dedent=x', syntax: '[!code]' }, '')).toMatchObject({
      problem: expect.stringContaining('dedent=x') as string,
    });
  });

  it('reads every documented :::code attribute', () => {
    expect(
      codeReferenceOf(
        {
          language: 'csharp',
          source: '~/samples/Program.cs',
          id: 'snippet_Create',
          range: '2-4',
          highlight: '2',
          interactive: 'try-dotnet-method',
          dedent: '0',
        },
        'csharp',
      ),
    ).toEqual({
      path: '~/samples/Program.cs',
      language: 'csharp',
      caption: undefined,
      snippet: 'snippet_Create',
      range: '2-4',
      highlight: '2',
      dedent: 0,
      interactive: 'try-dotnet-method',
    });
    expect(codeReferenceOf({ language: 'csharp' }, 'csharp')).toMatchObject({
      problem: 'names no file',
    });
  });
});

describe('snippet markers in each comment syntax', () => {
  it.each([
    ['        // <Main>', false, 'main'],
    ['// </Main>', true, 'main'],
    ['# <setup>', false, 'setup'],
    ["' <Snippet1>", false, 'snippet1'],
    ['<!-- <Layout> -->', false, 'layout'],
    ['<!--<snippet1>-->', false, 'snippet1'],
    ['-- <Query>', false, 'query'],
    ['/* <Styles> */', false, 'styles'],
    ['(* <Fs> *)', false, 'fs'],
    ['rem <Batch>', false, 'batch'],
    ['#region Helpers', false, 'helpers'],
    ['#Region "VbPart"', false, 'vbpart'],
    ['#pragma region Cpp', false, 'cpp'],
    ['// #region ts-part', false, 'ts-part'],
    ['#endregion', true, ''],
    ['#End Region', true, ''],
  ])('%s is a marker', (line, closing, name) => {
    expect(snippetMarker(line)).toMatchObject({ closing, name });
  });

  it.each(['/// <summary>', '# a region of interest here', 'var x = "<Main>";', '<div>'])(
    '%s is not a marker',
    (line) => {
      expect(snippetMarker(line)).toBeUndefined();
    },
  );
});

describe('extracting the referenced code', () => {
  it('takes a tag snippet, drops nested markers and dedents by the common indentation', () => {
    expect(extractCode(PROGRAM, reference('Program.cs?name=Main'))).toBe(
      ['static void Main()', '{', '    Console.WriteLine("Hello");', '}'].join('\n'),
    );
  });

  it('takes a #region by name, case-insensitively, with nested regions closed in order', () => {
    expect(extractCode(PROGRAM, reference('Program.cs#helpers'))).toBe(
      ['static int Twice(int x) => x * 2;', 'static int Thrice(int x) => x * 3;'].join('\n'),
    );
    expect(extractCode(PROGRAM, reference('Program.cs?name=Inner'))).toBe(
      'static int Thrice(int x) => x * 3;',
    );
  });

  it('finds <SnippetN> by its number, as old DocFX samples write it', () => {
    const vb = ["' <Snippet1>", 'Dim x = 1', "' </Snippet1>"].join('\n');
    expect(extractCode(vb, reference('a.vb#1', 'vb'))).toBe('Dim x = 1');
  });

  it('picks line ranges of the file, or of the snippet when both are given', () => {
    expect(extractCode(PROGRAM, reference('Program.cs?range=1,3-4'))).toBe(
      'using System;\nnamespace Demo\n{',
    );
    expect(extractCode(PROGRAM, reference('Program.cs#L22-L23'))).toBe('    }\n}');
    expect(extractCode(PROGRAM, reference('Program.cs?range=22-'))).toBe('    }\n}');
    expect(extractCode(PROGRAM, reference('Program.cs?name=Main&range=2-3'))).toBe(
      '{\n    Console.WriteLine("Hello");',
    );
  });

  it('dedents by exactly N with dedent=N, and not at all with dedent=0', () => {
    expect(extractCode(PROGRAM, reference('Program.cs?name=Greeting&dedent=4'))).toBe(
      '        Console.WriteLine("Hello");',
    );
    expect(extractCode(PROGRAM, reference('Program.cs?name=Greeting&dedent=0'))).toBe(
      '            Console.WriteLine("Hello");',
    );
    expect(dedentLines(['  a', '', '    b'], undefined)).toEqual(['a', '', '  b']);
  });

  it('names the problem and the fix for a missing snippet or an unreadable range', () => {
    expect(extractCode(PROGRAM, reference('Program.cs?name=Nope'))).toMatchObject({
      problem: expect.stringContaining('no snippet "Nope"') as string,
      fix: expect.stringContaining('// <Nope>') as string,
    });
    expect(extractCode(PROGRAM, reference('Program.cs?range=40-50'))).toMatchObject({
      problem: expect.stringContaining('there are 23') as string,
    });
    expect(extractCode(PROGRAM, reference('Program.cs?range=a-b'))).toMatchObject({
      problem: expect.stringContaining('is not a list') as string,
    });
    // A snippet opened and never closed is missing too.
    expect(extractCode('// <Open>\nx', reference('a.cs?name=Open'))).toMatchObject({
      problem: expect.stringContaining('no snippet') as string,
    });
  });
});

describe('inlining the code into the page text', () => {
  it('replaces the referencing line by a fence and moves the later sections', () => {
    const body = '# Title\n\nIntro.\n\n\n## Next\n\nMore.\n';
    const sections = [
      { anchor: 'title', offset: 0 },
      { anchor: 'next', offset: body.indexOf('## Next') },
    ];
    const result = inlineCode({ body, sections }, [
      { line: 5, language: 'csharp', code: 'var a = "```";' },
    ]);
    expect(result.body).toBe(
      '# Title\n\nIntro.\n\n````csharp\nvar a = "```";\n````\n## Next\n\nMore.\n',
    );
    expect(result.sections?.map((s) => result.body.slice(s.offset, s.offset + 7))).toEqual([
      '# Title',
      '## Next',
    ]);
  });

  it('indents the fence as the referencing line was, so a list item keeps its code', () => {
    expect(
      inlineCode({ body: '1. Run:\n\n   \n2. Done' }, [{ line: 3, language: 'bash', code: 'a\nb' }])
        .body,
    ).toBe('1. Run:\n\n   ```bash\n   a\n   b\n   ```\n2. Done');
  });

  it('leaves the line empty when the reference could not be read', () => {
    expect(inlineCode({ body: 'a\n[!code]\nb' }, [{ line: 2, language: '', code: '' }])).toEqual({
      body: 'a\n\nb',
    });
  });
});
