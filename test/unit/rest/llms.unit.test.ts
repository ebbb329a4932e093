import { describe, expect, it } from 'vitest';
import { renderLlmsTxt } from '../../../mcp-gateway/llms.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';

describe('llms.txt', () => {
  const text = renderLlmsTxt({
    baseUrl: 'https://core.example.com/',
    stdioCommand: 'cogitave mcp',
  });
  const lines = text.split('\n');

  it('follows the llmstxt.org layout: H1, blockquote summary, H2 sections of link lists', () => {
    expect(lines[0]).toBe('# Cogitave Core');
    expect(lines.find((line) => line.startsWith('> '))).toMatch(/Model Context Protocol/);
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(1);
    const sections = lines.filter((line) => line.startsWith('## '));
    expect(sections).toContain('## Optional');
    // Every top-level list item under an H2 is "- [name](url): notes".
    const firstH2 = lines.findIndex((line) => line.startsWith('## '));
    for (const line of lines.slice(firstH2).filter((l) => l.startsWith('- '))) {
      expect(line).toMatch(/^- \[[^\]]+\]\(https:\/\/[^)]+\)(: .+)?$/);
    }
  });

  it('says how to connect: the MCP endpoint, the stdio command and the REST description', () => {
    expect(text).toContain('`https://core.example.com/mcp`');
    expect(text).toContain('`cogitave mcp`');
    expect(text).toContain('https://core.example.com/api/openapi.json');
  });

  it('lists every tool of ALL_TOOLS with its description and arguments; read tools link to REST', () => {
    for (const tool of ALL_TOOLS) {
      const url =
        tool.access === 'read'
          ? `https://core.example.com/api/tools/${tool.name}`
          : 'https://core.example.com/mcp';
      const line = lines.find((l) => l.startsWith(`- [${tool.name}](`));
      expect(line, tool.name).toBe(
        `- [${tool.name}](${url}): ${tool.title}. ${tool.description.replace(/\s+/g, ' ').trim()}`,
      );
    }
    expect(text).toContain('- `request_id` (string, required)');
    expect(text).toMatch(/- `limit` \(integer, optional\) — Page size/);
    expect(text).toMatch(/- `acceptance_criteria` \(string\[\], required\)/);
  });
});
