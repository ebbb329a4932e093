import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';

/**
 * The shipped documentation tells agents which tools exist (`docs_fetch
 * cogitave.core.mcp-surface`): its table must name exactly the tools the registry serves.
 */
const SURFACE_DOC = new URL(
  '../../../services/catalog/corpus/docs/mcp-surface.md',
  import.meta.url,
);

/** The tool names in the first column of the "## Tools" table. */
const documentedTools = (markdown: string): string[] => {
  const section = /^## Tools\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) =>
      [...(line.split('|')[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1] ?? ''),
    );
};

describe('the shipped MCP surface document', () => {
  it('given the registry, when the tools table of mcp-surface.md is read, then it names every tool of ALL_TOOLS once and no other', async () => {
    const documented = documentedTools(await readFile(SURFACE_DOC, 'utf8'));
    expect(documented.length).toBeGreaterThan(0);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(ALL_TOOLS.map((tool) => tool.name).sort());
  });
});
