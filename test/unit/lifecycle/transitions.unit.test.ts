import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { STAGES } from '../../../lifecycle/stages.js';
import {
  LIFECYCLE_EDGES,
  renderGuard,
  renderTransitionsDocument,
} from '../../../lifecycle/transitions.js';
import {
  formattedTransitionsDocument,
  TRANSITIONS_PATH,
} from '../../../lifecycle/write-transitions.js';

describe('TRANSITIONS.md', () => {
  it('given the machine, when the document is generated, then the file on disk is identical (run npm run docs:lifecycle)', async () => {
    const onDisk = await readFile(TRANSITIONS_PATH, 'utf8');
    expect(onDisk).toBe(await formattedTransitionsDocument());
  });

  it('given the machine, when its edges are read, then forward edges carry dodMet of the stage they leave', () => {
    const edge = LIFECYCLE_EDGES.find((e) => e.from === 'specified' && e.to === 'in_progress');
    expect(edge?.event).toBe('advance.in_progress');
    expect(edge?.guards.map(renderGuard)).toEqual([
      'dodMet(stage: specified)',
      'noPendingProposal',
      'approverIsNotProposer',
    ]);
  });

  it('given the machine, when its edges are read, then resuming edges carry resumesTo with their target', () => {
    const resumes = LIFECYCLE_EDGES.filter(
      (e) => e.from === 'deferred' && e.event.startsWith('advance.'),
    );
    expect(resumes.map((e) => [e.to, renderGuard(e.guards[0]!)])).toEqual([
      ['accepted', 'resumesTo(stage: accepted)'],
      ['specified', 'resumesTo(stage: specified)'],
      ['in_progress', 'resumesTo(stage: in_progress)'],
      ['rejected', 'noPendingProposal'],
      ['superseded', 'noPendingProposal'],
      ['withdrawn', 'noPendingProposal'],
    ]);
  });

  it('given the rendered document, when read, then every edge is a table row and a diagram line', () => {
    const text = renderTransitionsDocument();
    for (const edge of LIFECYCLE_EDGES) {
      expect(text).toContain(`| \`${edge.from}\` | \`${edge.to}\` | \`${edge.event}\` |`);
      expect(text).toContain(`  ${edge.from} --> ${edge.to} : ${edge.event}`);
    }
    expect(text).toContain('[*] --> proposed');
    expect(text).toContain('```mermaid\nstateDiagram-v2');
  });

  it('given the rendered document, when read, then every stage has a Definition of Done section', () => {
    const text = renderTransitionsDocument();
    for (const stage of STAGES) expect(text).toContain(`### \`${stage}\``);
  });
});
