import { afterEach, describe, expect, it } from 'vitest';
import { detectSite } from '../../../services/catalog/site.js';
import { makeCorpus, type CorpusFolder } from './fixtures.js';

// Shaped like dotnet/docs-maui's TOC.yml: a landing page, nested items, a query on an href,
// a ~/ href, a toc pointing to another toc, topicHref, external routes.
const ROOT_TOC = `- name: .NET MAUI
  href: index.yml
  items:
    - name: What is .NET MAUI?
      href: what-is-maui.md
    - name: Get started
      items:
        - name: Build your first app
          href: get-started/first-app.md?pivots=devices-windows
        - name: Hybrid web view
          href: ~/user-interface/hybridwebview.md
    - name: Artificial intelligence
      href: ai/TOC.yml
    - name: What's new
      href: whats-new/
      topicHref: whats-new/index.md
    - name: Architecture
      href: /dotnet/architecture/maui?toc=/dotnet/maui/toc.json
`;
const AI_TOC = `- name: Overview
  href: index.md
- name: Chat
  href: chat.md
- name: Back to the start
  href: ../TOC.yml
`;
const NEWS_TOC = `items:
- name: April 2025
  href: april-2025.md
- name: First app again
  href: ../get-started/first-app.md
`;

describe('DocFX toc.yml', () => {
  let folder: CorpusFolder | undefined;
  afterEach(async () => {
    await folder?.cleanup();
    folder = undefined;
  });

  it('given tocs pointing to tocs, when walked, then titles, groups and order as the site shows them', async () => {
    const files = {
      'docs/docfx.json': JSON.stringify({ build: { content: [{ files: ['**/*.md'], src: '.' }] } }),
      'docs/TOC.yml': ROOT_TOC,
      'docs/ai/TOC.yml': AI_TOC,
      'docs/whats-new/toc.yml': NEWS_TOC,
    };
    folder = await makeCorpus(files);
    // The nested tocs come first in file order: the root toc still decides the order.
    const site = await detectSite(folder.dir, [
      'docs/ai/TOC.yml',
      'docs/whats-new/toc.yml',
      'docs/TOC.yml',
      'docs/docfx.json',
    ]);
    const nav = [...site.navigation.entries()].map(([page, entry]) => [
      page,
      entry.order,
      entry.title,
      entry.groups.join(' > '),
    ]);
    expect(nav).toEqual([
      ['docs/what-is-maui', 0, 'What is .NET MAUI?', '.NET MAUI'],
      ['docs/get-started/first-app', 1, 'Build your first app', '.NET MAUI > Get started'],
      ['docs/user-interface/hybridwebview', 2, 'Hybrid web view', '.NET MAUI > Get started'],
      ['docs/ai/index', 3, 'Overview', '.NET MAUI > Artificial intelligence'],
      ['docs/ai/chat', 4, 'Chat', '.NET MAUI > Artificial intelligence'],
      ['docs/whats-new/index', 5, "What's new", '.NET MAUI'],
      ['docs/whats-new/april-2025', 6, 'April 2025', ".NET MAUI > What's new"],
    ]);
    expect(site.notes.filter((note) => /toc\.yml$/i.test(note.file)).every((n) => n.read)).toBe(
      true,
    );
  });

  it('given a toc of the wrong shape and a cycle, when walked, then the others still read', async () => {
    folder = await makeCorpus({
      'toc.yml': '- name: A\n  href: a.md\n- name: B\n  href: b/toc.yml\n',
      'b/toc.yml': '- name: Loop\n  href: ../toc.yml\n- name: C\n  href: c.md\n- 42\n',
      'c/toc.yml': 'just text\n',
    });
    const site = await detectSite(folder.dir, ['toc.yml', 'b/toc.yml', 'c/toc.yml']);
    expect([...site.navigation.keys()]).toEqual(['a', 'b/c']);
    expect(site.navigation.get('b/c')).toMatchObject({ title: 'C', groups: ['B'] });
  });
});
