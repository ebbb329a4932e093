import { describe, expect, it } from 'vitest';
import { argumentsFromQuery } from '../../../mcp-gateway/rest/query.js';
import { toolSchemas } from '../../../mcp-gateway/rest/schemas.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';
import { shapesTool } from './fixtures.js';

const parse = (query: string) =>
  argumentsFromQuery(new URLSearchParams(query), toolSchemas(shapesTool).input);

describe('query parameters to tool arguments', () => {
  it('given repeated parameters or comma lists, then arrays', () => {
    expect(parse('types=doc&types=unit').types).toEqual(['doc', 'unit']);
    expect(parse('types=doc,unit,module').types).toEqual(['doc', 'unit', 'module']);
    expect(parse('depths=1,2&depths=3').depths).toEqual([1, 2, 3]);
  });

  it('given numbers, booleans and JSON objects, then typed values the schema accepts', () => {
    const args = parse('query=a%2Cb&limit=5&exact=true&params=%7B%22uid%22%3A%22x%22%7D');
    expect(args).toEqual({ query: 'a,b', limit: 5, exact: true, params: { uid: 'x' } });
    expect(shapesTool.input.safeParse(args).success).toBe(true);
  });

  it('given a string-or-number argument, then it stays a string', () => {
    expect(parse('uid=42').uid).toBe('42');
  });

  it('given a value that is not a number, then it is left for the schema to refuse', () => {
    const args = parse('query=x&limit=many');
    expect(args.limit).toBe('many');
    expect(shapesTool.input.safeParse(args).success).toBe(false);
  });

  it('given malformed JSON or a repeated scalar, then InvalidArgument naming the parameter', () => {
    expect(() => parse('params={oops')).toThrow(InvalidArgument);
    expect(() => parse('params={oops')).toThrow(/params must be JSON/);
    expect(() => parse('query=a&query=b')).toThrow(/query was given 2 times/);
  });

  it('given an unknown parameter, then it passes through so the strict schema names it', () => {
    const args = parse('query=x&colour=blue');
    expect(args.colour).toBe('blue');
    const parsed = shapesTool.input.safeParse(args);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('colour');
  });
});
