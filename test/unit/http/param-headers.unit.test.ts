import { describe, expect, it } from 'vitest';
import {
  paramHeaderDeclarations,
  paramHeaderProblem,
} from '../../../mcp-gateway/http/param-headers.js';

/** SEP-2243: `x-mcp-header` arguments mirrored in `Mcp-Param-*` headers must agree. */
const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    nested: {
      type: 'object',
      properties: { flag: { type: 'boolean', 'x-mcp-header': 'Flag' } },
    },
    list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Ignored' } },
  },
};
const declarations = paramHeaderDeclarations(SCHEMA);
const problem = (args: unknown, headers: Record<string, string>) =>
  paramHeaderProblem(declarations, args, new Headers(headers));

describe('paramHeaderDeclarations', () => {
  it('given a schema, when scanned, then only properties chains declare headers', () => {
    expect(declarations).toEqual([
      { path: ['region'], header: 'Region', type: 'string' },
      { path: ['count'], header: 'Count', type: 'integer' },
      { path: ['nested', 'flag'], header: 'Flag', type: 'boolean' },
    ]);
  });
});

describe('paramHeaderProblem', () => {
  it('given agreeing literal, Base64 and numeric headers, when checked, then nothing is wrong', () => {
    expect(
      problem(
        { region: 'Hello', count: 42, nested: { flag: true } },
        {
          'mcp-param-region': `=?base64?${Buffer.from('Hello').toString('base64')}?=`,
          'mcp-param-count': '42.0',
          'mcp-param-flag': 'true',
        },
      ),
    ).toBeUndefined();
  });

  it('given an argument that is absent or null, when checked, then no header is expected', () => {
    expect(problem({ region: null }, {})).toBeUndefined();
  });

  it('given a value only in the body, when checked, then the missing header is named', () => {
    expect(problem({ region: 'eu' }, {})).toMatch(/Mcp-Param-Region header is missing/);
  });

  it.each([
    ['=?base64?SGVsbG8?=', 'bad padding'],
    ['=?base64?SGVs!!!bG8=?=', 'characters outside the alphabet'],
    [`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`, 'bytes that are not UTF-8'],
  ])('given Base64 with %s (%s), when checked, then it is refused', (header) => {
    expect(problem({ region: 'Hello' }, { 'mcp-param-region': header })).toMatch(
      /not canonical Base64/,
    );
  });

  it('given a sentinel missing its suffix, when checked, then the value is literal', () => {
    expect(
      problem({ region: '=?base64?SGVsbG8=' }, { 'mcp-param-region': '=?base64?SGVsbG8=' }),
    ).toBeUndefined();
  });

  it('given header and body that differ, when checked, then both values are named', () => {
    expect(problem({ region: 'eu' }, { 'mcp-param-region': 'us' })).toBe(
      'the Mcp-Param-Region header says "us" but the arguments carry region="eu"',
    );
  });
});
