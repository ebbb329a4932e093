import { describe, expect, it } from 'vitest';
import type {
  CatalogEdgeRow,
  CatalogNodeSummary,
} from '../../../services/catalog/read-model/queries.js';
import {
  findLearningPath,
  LearningCycle,
  type LearningGraph,
} from '../../../services/catalog/learning-path.js';

const graphOf = (
  nodes: Record<string, string>,
  edges: [source: string, type: string, target: string, ordinal?: number][],
): LearningGraph => {
  const summaries = new Map<string, CatalogNodeSummary>(
    Object.entries(nodes).map(([uid, label]) => [
      uid,
      { uid, label, title: uid, summary: '', monikers: ['latest'], attributes: {} },
    ]),
  );
  const incoming = new Map<string, CatalogEdgeRow[]>();
  for (const [source, type, target, ordinal] of edges) {
    const list = incoming.get(target) ?? [];
    list.push({ source, type, target, ordinal: ordinal ?? 0, origin: 'frontMatter' });
    incoming.set(target, list);
  }
  return { nodes: summaries, incoming };
};

describe('learning order', () => {
  const graph = graphOf(
    {
      path: 'LearningPath',
      m1: 'Module',
      m2: 'Module',
      u1: 'Unit',
      u2: 'Unit',
      u3: 'Unit',
      intro: 'Doc',
      skill: 'Skill',
    },
    [
      ['m2', 'partOf', 'path', 2],
      ['m1', 'partOf', 'path', 1],
      ['u2', 'partOf', 'm1', 2],
      ['u1', 'partOf', 'm1', 1],
      ['u3', 'partOf', 'm2', 1],
      ['intro', 'prerequisiteOf', 'm1'],
      ['u3', 'teaches', 'skill'],
    ],
  );

  it('puts prerequisites first, then each container followed by its parts in ordinal order', () => {
    const { order } = findLearningPath(graph, 'path', new Set());
    expect(order.map((s) => `${s.uid}:${s.reason}`)).toEqual([
      'path:target',
      'intro:prerequisite',
      'm1:part',
      'u1:part',
      'u2:part',
      'm2:part',
      'u3:part',
    ]);
  });

  it('skips known nodes with everything they cover', () => {
    const { order, skipped } = findLearningPath(graph, 'path', new Set(['m1', 'intro']));
    expect(order.map((s) => s.uid)).toEqual(['path', 'm2', 'u3']);
    // intro is only reached through m1, which is known: it is not visited at all.
    expect(skipped).toEqual(['m1']);
  });

  it('reaches a skill through what teaches it', () => {
    expect(findLearningPath(graph, 'skill', new Set()).order.map((s) => s.uid)).toEqual([
      'u3',
      'skill',
    ]);
  });

  it('names the cycle in learning order', () => {
    const cyclic = graphOf({ a: 'Doc', b: 'Doc', c: 'Doc' }, [
      ['a', 'prerequisiteOf', 'b'],
      ['b', 'prerequisiteOf', 'c'],
      ['c', 'prerequisiteOf', 'a'],
    ]);
    expect(() => findLearningPath(cyclic, 'c', new Set())).toThrow(LearningCycle);
    expect(() => findLearningPath(cyclic, 'c', new Set())).toThrow('c → a → b → c');
  });
});
