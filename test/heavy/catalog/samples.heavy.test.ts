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
    expect(results?.get('good')).toEqual({ mode: 'types', compiled: true, diagnostics: [] });
    expect(results?.get('broken')).toEqual({
      mode: 'types',
      compiled: false,
      diagnostics: ["1:7 TS2322: Type 'string' is not assignable to type 'number'."],
    });
    expect(results?.get('js')).toEqual({ mode: 'types', compiled: true, diagnostics: [] });
    expect(results?.has('shell')).toBe(false);
  }, 60_000);

  it('in syntax mode parses only: a fragment of another project passes, broken syntax is marked', async () => {
    const results = await checkSamples(
      [
        {
          uid: 'fragment',
          language: 'typescript',
          code: "import { defineConfig } from 'vite';\nexport default defineConfig({ base: '/app/' });\n",
        },
        { uid: 'jsx', language: 'jsx', code: 'export const App = () => <main>hi</main>;\n' },
        { uid: 'elided', language: 'javascript', code: 'const config = {\n  ...\n}\n' },
      ],
      'syntax',
    );
    expect(results?.get('fragment')).toEqual({ mode: 'syntax', compiled: true, diagnostics: [] });
    expect(results?.get('jsx')).toMatchObject({ compiled: true });
    expect(results?.get('elided')).toMatchObject({ mode: 'syntax', compiled: false });
  });

  it('checks a sample repeated under many uids (versions of a page) once, and answers each uid', async () => {
    const broken = 'const config = {\n  ...\n}\n';
    const fine = 'export const a = 1;\n';
    const results = await checkSamples(
      [
        { uid: 'v1-broken', language: 'javascript', code: broken },
        { uid: 'v1-fine', language: 'javascript', code: fine },
        { uid: 'v2-broken', language: 'javascript', code: broken },
        // The same text in another language is another sample.
        { uid: 'v2-fine-ts', language: 'typescript', code: fine },
        { uid: 'v2-fine', language: 'javascript', code: fine },
      ],
      'syntax',
    );
    expect(results?.size).toBe(5);
    expect(results?.get('v2-broken')).toEqual(results?.get('v1-broken'));
    expect(results?.get('v1-broken')).toMatchObject({ compiled: false });
    expect(results?.get('v1-fine')).toMatchObject({ compiled: true });
    expect(results?.get('v2-fine')).toMatchObject({ compiled: true });
    expect(results?.get('v2-fine-ts')).toMatchObject({ compiled: true });
  });
});
