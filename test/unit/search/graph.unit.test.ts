import { describe, expect, it } from 'vitest';
import { createDocumentGraph } from '../../../services/search/graph.js';

describe('document graph', () => {
  it('given typed edges, when proximity spreads from seeds, then linked documents score by seed × weight / √degree', () => {
    const graph = createDocumentGraph({ edgeWeights: { partOf: 1, relatedTo: 0.5 } });
    graph.replaceOutbound(
      [],
      [
        { source: 'unit-1', target: 'module', type: 'partOf' },
        { source: 'unit-2', target: 'module', type: 'partOf' },
        { source: 'unit-1', target: 'other', type: 'relatedTo' },
      ],
    );
    const scores = graph.proximity(
      new Map([
        ['unit-1', 1],
        ['unit-2', 0.5],
      ]),
      () => true,
    );
    expect(scores.get('module')).toBeCloseTo((1 + 0.5) / Math.SQRT2, 10);
    expect(scores.get('other')).toBeCloseTo(0.5, 10);
    expect(scores.has('unit-1')).toBe(false);
  });

  it('given a star, when ranked, then the centre has the highest PageRank', () => {
    const graph = createDocumentGraph();
    graph.replaceOutbound(
      [],
      ['a', 'b', 'c', 'd'].map((leaf) => ({ source: leaf, target: 'hub', type: 'xref' })),
    );
    const ranks = graph.centrality();
    expect(ranks.get('hub')).toBe(1);
    expect(ranks.get('a')).toBeLessThan(0.5);
  });

  it('given replaced and removed sources, when queried, then old edges are gone', () => {
    const graph = createDocumentGraph();
    graph.replaceOutbound([], [{ source: 'a', target: 'b', type: 'xref' }]);
    graph.replaceOutbound(['a'], [{ source: 'a', target: 'c', type: 'xref' }]);
    expect(graph.edgeCount).toBe(1);
    expect([...graph.proximity(new Map([['a', 1]]), () => true).keys()]).toEqual(['c']);
    graph.removeNode('a');
    expect(graph.edgeCount).toBe(0);
    expect(graph.proximity(new Map([['a', 1]]), () => true).size).toBe(0);
  });
});
