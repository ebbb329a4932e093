import { describe, expect, it } from 'vitest';
import { iconSource } from '../../../mcp-gateway/server/icons.js';
import { prepareTools } from '../../../mcp-gateway/server/tools.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';

/** Icon sources as the specification's schema allows them: https, or base64 data URIs. */
describe('tool icons', () => {
  it('given every registry tool, when prepared, then each icon is an https URL or a base64 data: URI that decodes to the registry’s SVG', () => {
    const prepared = prepareTools(ALL_TOOLS);
    for (const tool of ALL_TOOLS) {
      const icons = prepared.get(tool.name)?.icons ?? [];
      for (const icon of icons) {
        expect(icon.src, tool.name).toMatch(/^(https:\/\/|data:image\/svg\+xml;base64,)/);
        if (icon.src.startsWith('data:')) {
          const svg = Buffer.from(icon.src.split(',')[1] ?? '', 'base64').toString('utf8');
          expect(svg, tool.name).toMatch(/^<svg[\s\S]*<\/svg>$/);
        }
      }
    }
  });

  it('given a percent-encoded text data URI, then the decoded text is what gets base64-encoded', () => {
    const { src } = iconSource('data:image/svg+xml,%3Csvg%3E%3C%2Fsvg%3E');
    expect(src).toBe(`data:image/svg+xml;base64,${Buffer.from('<svg></svg>').toString('base64')}`);
  });

  it('given an http URL or a bare string, then it is refused at start-up', () => {
    expect(() => iconSource('http://example.com/icon.svg')).toThrow(/https URL nor a data: URI/);
    expect(() => iconSource('icon.svg')).toThrow(/https URL nor a data: URI/);
  });
});
