import { describe, expect, it } from 'vitest';
import { copyValue, CopyText } from '../../../services/database/copy.js';

describe('COPY text values', () => {
  it('given JSON with backslashes, quotes and control characters, when encoded, then only the backslashes are doubled', () => {
    const value = { path: 'C:\\dir', quote: '"x"', tab: 'a\tb', line: 'a\nb' };
    const json = JSON.stringify(value);
    expect(copyValue(value)).toBe(json.replaceAll('\\', '\\\\'));
    expect(copyValue(value)).not.toMatch(/[\t\n\r]/);
  });

  it('given a value with no JSON representation, when encoded, then it is refused rather than written', () => {
    expect(() => copyValue(() => 1)).toThrow(/no JSON representation/);
    expect(() => copyValue(Symbol('s'))).toThrow(/no JSON representation/);
  });

  it('given rows of mixed values, when added, then each is one tab-separated line in column order', () => {
    const text = new CopyText(['a', 'b', 'c']);
    text.addRow({ c: null, b: 'x\ty', a: 1 });
    text.add(['→ é', { k: 'v' }, 2n]);
    expect(Buffer.concat(text.chunks()).toString('utf8')).toBe(
      '1\tx\\ty\t\\N\n→ é\t{"k":"v"}\t2\n',
    );
    expect(text.rows).toBe(2);
  });
});
