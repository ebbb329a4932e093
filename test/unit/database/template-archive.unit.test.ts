import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { unpackTemplate } from '../../../services/database/embedded/template-archive.js';

/** A gzipped ustar archive of `entries` (a path ending in `/` is a folder). */
const archive = (entries: Record<string, string>): Buffer => {
  const blocks: Buffer[] = [];
  for (const [path, content] of Object.entries(entries)) {
    const folder = path.endsWith('/');
    const data = Buffer.from(folder ? '' : content);
    const header = Buffer.alloc(512);
    header.write(folder ? path.slice(0, -1) : path, 0, 100);
    header.write('0000644\0', 100);
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write(folder ? '5' : '0', 156);
    header.write('ustar\u000000', 257);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]));
};

/** A new data folder is unpacked from the cached template instead of running initdb. */
describe('unpacking the template of a new data folder', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes every file and folder of the archive into the data folder', () => {
    dir = mkdtempSync(join(tmpdir(), 'cogitave-template-'));
    unpackTemplate(
      archive({ '/PG_VERSION': '17\n', '/base/': '', '/base/1/112': 'page', '/global/': '' }),
      dir,
    );
    expect(readFileSync(join(dir, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(readFileSync(join(dir, 'base', '1', '112'), 'utf8')).toBe('page');
    expect(existsSync(join(dir, 'global'))).toBe(true);
  });

  it('refuses an entry outside the folder and leaves the folder as it was', () => {
    dir = mkdtempSync(join(tmpdir(), 'cogitave-template-'));
    expect(() => {
      unpackTemplate(archive({ '/PG_VERSION': '17\n', '../escape': 'x' }), dir as string);
    }).toThrow(/not inside the folder/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses an archive that is not a data folder (no PG_VERSION)', () => {
    dir = mkdtempSync(join(tmpdir(), 'cogitave-template-'));
    expect(() => {
      unpackTemplate(archive({ '/base/': '', '/base/1': 'x' }), dir as string);
    }).toThrow(/no PG_VERSION/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
