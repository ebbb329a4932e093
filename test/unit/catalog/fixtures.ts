import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A corpus folder written from a map of relative path → text, removed by `remove()`. */
export interface CorpusFolder {
  readonly dir: string;
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
  cleanup(): Promise<void>;
}

export const makeCorpus = async (files: Record<string, string>): Promise<CorpusFolder> => {
  const dir = await mkdtemp(join(tmpdir(), 'cogitave-corpus-'));
  const write = async (path: string, text: string): Promise<void> => {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  };
  for (const [path, text] of Object.entries(files)) await write(path, text);
  return {
    dir,
    write,
    remove: (path) => rm(join(dir, path)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
};

/** A Markdown node: front matter lines, then the body. */
export const md = (front: Record<string, unknown>, body = ''): string =>
  `---\n${Object.entries(front)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join('\n')}\n---\n${body}`;

/**
 * A small graph: a path with two modules (units out of file order), a skill, prerequisites,
 * monikers, and a separate three-node prerequisite cycle.
 */
export const GRAPH_FILES: Record<string, string> = {
  'docs/intro.md': md(
    { uid: 'g.doc.intro', label: 'Doc', title: 'Introduction', prerequisiteOf: 'g.module.basics' },
    'Read @g.doc.deep and <xref:g.unit.first> next.\n',
  ),
  'docs/deep.md': md(
    { uid: 'g.doc.deep', label: 'Doc', title: 'Deep dive', monikers: ['latest', '2025-10'] },
    'Old and new.\n',
  ),
  'docs/frozen.md': md(
    { uid: 'g.doc.frozen', label: 'Doc', title: 'Frozen page', monikers: ['2025-10'] },
    'Only in 2025-10.\n',
  ),
  'path.md': md({ uid: 'g.path', label: 'LearningPath', title: 'The path' }),
  'basics/module.md': md({
    uid: 'g.module.basics',
    label: 'Module',
    title: 'Basics',
    durationInMinutes: 30,
    partOf: { uid: 'g.path', ordinal: 1 },
  }),
  'basics/second.md': md({
    uid: 'g.unit.second',
    kind: 'unit',
    title: 'Second unit',
    durationInMinutes: 7,
    partOf: { uid: 'g.module.basics', ordinal: 2 },
  }),
  'basics/first.json': JSON.stringify({
    uid: 'g.unit.first',
    kind: 'moduleUnit',
    title: 'First unit',
    summary: 'Starts here.',
    headings: ['One'],
    source: '## One\n\nSee @g.doc.intro.\n',
    partOf: { uid: 'g.module.basics', ordinal: 1 },
    durationInMinutes: 5,
    teaches: 'g.skill.basics',
  }),
  'advanced/module.md': md({
    uid: 'g.module.advanced',
    label: 'Module',
    title: 'Advanced',
    partOf: { uid: 'g.path', ordinal: 2 },
  }),
  'advanced/only.md': md({
    uid: 'g.unit.advanced',
    kind: 'unit',
    title: 'Advanced unit',
    durationInMinutes: 11,
    partOf: 'g.module.advanced',
  }),
  'skill.md': md({
    uid: 'g.skill.basics',
    label: 'Skill',
    title: 'Basics skill',
    prerequisiteOf: 'g.module.advanced',
  }),
  'cycle/a.md': md({
    uid: 'g.cycle.a',
    label: 'Doc',
    title: 'Cycle A',
    prerequisiteOf: 'g.cycle.b',
  }),
  'cycle/b.md': md({
    uid: 'g.cycle.b',
    label: 'Doc',
    title: 'Cycle B',
    prerequisiteOf: 'g.cycle.c',
  }),
  'cycle/c.md': md({
    uid: 'g.cycle.c',
    label: 'Doc',
    title: 'Cycle C',
    prerequisiteOf: 'g.cycle.a',
  }),
};
