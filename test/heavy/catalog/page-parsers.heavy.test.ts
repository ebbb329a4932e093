import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMarkdownFile } from '../../../services/catalog/page-node.js';
import {
  PARALLEL_PAGES_FROM,
  parsePagesInWorkers,
} from '../../../services/catalog/page-parsers.js';

/**
 * Page parsing in worker threads (large folders): given the real fixture sites' pages, when
 * they are parsed in workers, then each page is exactly what parsing it here gives.
 */
const sites = fileURLToPath(new URL('../../fixtures/docs-sites', import.meta.url));

const pageFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return pageFiles(path);
    return /\.mdx?$/.test(entry.name) ? [relative(sites, path)] : [];
  });

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('page parsing in worker threads', () => {
  it('gives every page of the fixture sites exactly as an in-process parse does', async () => {
    const pages = pageFiles(sites).map((file) => ({ file, mdx: file.endsWith('.mdx') }));
    expect(pages.length).toBeGreaterThanOrEqual(PARALLEL_PAGES_FROM);
    const parsed = await parsePagesInWorkers(sites, pages, 2);
    expect(parsed?.size).toBe(pages.length);
    for (const { file, mdx } of pages) {
      const here = parseMarkdownFile(file, readFileSync(join(sites, file), 'utf8'), mdx);
      expect(parsed?.get(file), file).toEqual(here);
    }
  }, 120_000);

  it('reports a page whose front matter is not YAML, as in-process parsing does', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'cogitave-page-workers-'));
    folders.push(folder);
    const pages = Array.from({ length: PARALLEL_PAGES_FROM }, (_, i) => ({
      file: `page-${i}.md`,
      mdx: false,
    }));
    for (const { file } of pages) writeFileSync(join(folder, file), `# ${file}\n\nText.\n`);
    writeFileSync(join(folder, 'page-7.md'), '---\ntitle: a: b\n---\n# Broken\n');
    const parsed = await parsePagesInWorkers(folder, pages, 2);
    expect(parsed?.get('page-7.md')).toMatchObject({
      kind: 'invalid',
      issue: { file: 'page-7.md', field: '(front matter)', line: 1 },
    });
    expect(parsed?.get('page-8.md')).toMatchObject({ kind: 'page' });
  }, 120_000);

  it('leaves a small folder, or a single core, to the caller', async () => {
    const few = [{ file: 'mcp/docs/docs.json', mdx: false }];
    expect(await parsePagesInWorkers(sites, few, 2)).toBeUndefined();
    const many = Array.from({ length: PARALLEL_PAGES_FROM }, () => few[0] as (typeof few)[0]);
    expect(await parsePagesInWorkers(sites, many, 1)).toBeUndefined();
  });
});
