import { describe, expect, it } from 'vitest';
import { checkSamples } from '../../../services/catalog/samples.js';

describe('compile check of samples', () => {
  it('passes a sample importing the MCP SDK, fails a broken one with its diagnostic, skips others', async () => {
    const results = await checkSamples([
      {
        uid: 'good',
        language: 'typescript',
        code: "import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nconst client = new Client({ name: 'x', version: '1.0.0' });\nconsole.log(client);\n",
      },
      {
        uid: 'broken',
        language: 'typescript',
        code: "const count: number = 'three';\nconsole.log(count);\n",
      },
      { uid: 'js', language: 'javascript', code: 'const a = 1;\nconsole.log(a.toFixed(2));\n' },
      { uid: 'shell', language: 'bash', code: 'npm start\n' },
    ]);
    expect(results?.get('good')).toEqual({ compiled: true, diagnostics: [] });
    expect(results?.get('broken')).toEqual({
      compiled: false,
      diagnostics: ["1:7 TS2322: Type 'string' is not assignable to type 'number'."],
    });
    expect(results?.get('js')).toEqual({ compiled: true, diagnostics: [] });
    expect(results?.has('shell')).toBe(false);
  }, 60_000);
});
