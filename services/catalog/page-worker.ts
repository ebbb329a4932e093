import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { parseMarkdownFile, type MarkdownFile } from './page-node.js';

/**
 * Worker-thread entry of page parsing (page-parsers.ts starts a few per ingest of a large
 * folder): reads and parses its share of the Markdown/MDX files and posts them back in one
 * message. The same `parseMarkdownFile` runs in-process otherwise, so a page parses the same
 * either way.
 */
export interface PageParseRequest {
  readonly root: string;
  readonly pages: readonly { readonly file: string; readonly mdx: boolean }[];
}

export type PageParseReply = readonly (readonly [file: string, parsed: MarkdownFile])[];

const port = parentPort;
if (!port) throw new Error('page-worker runs as a worker thread');
port.on('message', (request: PageParseRequest) => {
  const reply: PageParseReply = request.pages.map(({ file, mdx }) => [
    file,
    parseMarkdownFile(file, readFileSync(join(request.root, file), 'utf8'), mdx),
  ]);
  port.postMessage(reply);
});
