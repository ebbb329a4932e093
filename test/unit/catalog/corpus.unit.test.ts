import { afterEach, describe, expect, it } from 'vitest';
import { loadCorpus } from '../../../services/catalog/corpus.js';
import { GRAPH_FILES, makeCorpus, md, type CorpusFolder } from './fixtures.js';

/** Validation against the vocabulary, edges from front matter and text, samples. */
describe('loading a corpus', () => {
  let corpus: CorpusFolder | undefined;
  afterEach(async () => {
    await corpus?.cleanup();
  });

  it('builds nodes with declared and text edges from Markdown and JSON units', async () => {
    corpus = await makeCorpus(GRAPH_FILES);
    const loaded = await loadCorpus(corpus.dir, { checkSamples: false });
    expect(loaded.errors).toEqual([]);
    expect(loaded.nodes.map((n) => n.uid)).toContain('g.unit.first');
    const intro = loaded.nodes.find((n) => n.uid === 'g.doc.intro');
    expect(intro?.edges).toEqual([
      { type: 'prerequisiteOf', target: 'g.module.basics', ordinal: 0, origin: 'frontMatter' },
      { type: 'xref', target: 'g.doc.deep', ordinal: 0, origin: 'text' },
      { type: 'xref', target: 'g.unit.first', ordinal: 1, origin: 'text' },
    ]);
    const unit = loaded.nodes.find((n) => n.uid === 'g.unit.first');
    expect(unit).toMatchObject({
      label: 'Unit',
      summary: 'Starts here.',
      body: '## One\n\nSee @g.doc.intro.\n',
      attributes: { durationInMinutes: 5, headings: ['One'] },
      sourcePath: 'basics/first.json',
    });
  });

  it('reports every file that breaks the vocabulary with file, field, reason and fix', async () => {
    corpus = await makeCorpus({
      'ok.md': md({ uid: 'ok.doc', label: 'Doc', title: 'Fine' }),
      'unit.md': md({ uid: 'bad.unit', label: 'Unit', title: 'No duration' }),
      'adr.md': md({
        uid: 'bad.adr',
        label: 'ADR',
        title: 'ADR',
        status: 'maybe',
        date: '2026-01-01',
      }),
      'edge.md': md({ uid: 'bad.edge', label: 'Doc', title: 'Edge', linksTo: 'ok.doc' }),
      'uid.md': md({ uid: 'bad uid!', label: 'Doc', title: 'Uid' }),
      'teach.md': md({
        uid: 'bad.teach',
        label: 'Unit',
        title: 'T',
        durationInMinutes: 1,
        teaches: 'ok.doc',
      }),
      'plain.md': '# no front matter\n',
    });
    const { errors, nodes } = await loadCorpus(corpus.dir, { checkSamples: false });
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: 'unit.md',
          field: 'durationInMinutes',
          reason: expect.stringContaining('required for a Unit') as string,
        }),
        expect.objectContaining({
          file: 'adr.md',
          field: 'status',
          reason: expect.stringContaining('got "maybe"') as string,
        }),
        expect.objectContaining({
          file: 'uid.md',
          field: 'uid',
          reason: expect.stringContaining('must match') as string,
        }),
        expect.objectContaining({
          file: 'teach.md',
          field: 'teaches',
          reason: expect.stringContaining('must point at Skill') as string,
        }),
      ]),
    );
    expect(errors).toHaveLength(4);
    expect(errors.every((error) => typeof error.fix === 'string' && error.fix.length > 0)).toBe(
      true,
    );
    // Unknown keys are kept as attributes; a page without front matter is a page.
    expect(nodes.find((n) => n.uid === 'bad.edge')?.attributes).toMatchObject({
      linksTo: 'ok.doc',
    });
    expect(nodes.find((n) => n.sourcePath === 'plain.md')).toMatchObject({
      label: 'Doc',
      title: 'no front matter',
      path: '/plain',
    });
  });

  it('reports dangling declared edges and duplicate uids; an @mention that names no node is text', async () => {
    corpus = await makeCorpus({
      'a.md': md(
        { uid: 'a.doc', label: 'Doc', title: 'A', dependsOn: 'missing.decl' },
        'See @missing.text.\n',
      ),
      'b.md': md({ uid: 'a.doc', label: 'Doc', title: 'Again' }),
    });
    const loaded = await loadCorpus(corpus.dir, { checkSamples: false });
    expect(loaded.dangling).toEqual([
      { file: 'a.md', uid: 'a.doc', target: 'missing.decl', edgeType: 'dependsOn' },
    ]);
    expect(loaded.errors).toEqual([
      expect.objectContaining({
        file: 'b.md',
        field: 'uid',
        reason: '"a.doc" is already used by a.md',
      }),
    ]);
    expect(loaded.nodes.find((n) => n.uid === 'a.doc')?.edges).toEqual([]);
  });

  it('turns fenced blocks and :::code sources into CodeSample nodes', async () => {
    corpus = await makeCorpus({
      'samples/hello.ts':
        "export const greet = (name: string): string => `hi ${name}`;\nconsole.log(greet('a'));\n",
      'doc.md': md(
        { uid: 's.doc', label: 'Doc', title: 'Samples', product: 'p', monikers: ['2025-10'] },
        '```bash\nnpm start\n```\n\n:::code language="ts" source="samples/hello.ts" range="1":::\n\n:::code language="ts" source="samples/none.ts":::\n',
      ),
    });
    const broken = await loadCorpus(corpus.dir, { checkSamples: false });
    expect(broken.errors).toEqual([]);
    expect(broken.warnings).toEqual([
      expect.objectContaining({
        file: 'doc.md',
        field: 'code block (line 14)',
        reason: expect.stringContaining('not found') as string,
        line: 14,
      }),
    ]);
    await corpus.write(
      'doc.md',
      md(
        { uid: 's.doc', label: 'Doc', title: 'Samples', product: 'p' },
        '```bash\nnpm start\n```\n\n:::code language="ts" source="samples/hello.ts" range="1":::\n',
      ),
    );
    const loaded = await loadCorpus(corpus.dir, { checkSamples: false });
    expect(loaded.errors).toEqual([]);
    const samples = loaded.nodes.filter((n) => n.label === 'CodeSample');
    expect(samples.map((s) => [s.uid, s.attributes.language, s.body, s.sourcePath])).toEqual([
      ['s.doc.sample-1', 'bash', 'npm start\n', 'doc.md'],
      [
        's.doc.sample-2',
        'typescript',
        'export const greet = (name: string): string => `hi ${name}`;\n',
        'samples/hello.ts',
      ],
    ]);
    expect(samples[1]).toMatchObject({
      product: 'p',
      attributes: { sourceUid: 's.doc' },
      edges: [{ type: 'exampleOf', target: 's.doc', ordinal: 0, origin: 'text' }],
    });
  });
});
