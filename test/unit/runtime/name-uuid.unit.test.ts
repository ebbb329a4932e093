import { v5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { NODE_EVENT_NAMESPACE } from '../../../services/catalog/decide.js';
import { nameUuids } from '../../../services/runtime/name-uuid.js';

describe('name-based UUIDs', () => {
  it('given names of every kind, when derived, then each id equals the uuid package v5', () => {
    const names = [
      '',
      'node/docs.intro/0/NodePublished/ab12',
      'node/ünïcode-页面/3/NodeRevised/ff',
      // (Lone surrogates are left out: the package throws on them; names come from UTF-8 text.)
      'emoji 🚀 and paired surrogates',
      'x'.repeat(5000),
    ];
    for (const namespace of [NODE_EVENT_NAMESPACE, '6ba7b811-9dad-11d1-80b4-00c04fd430c8']) {
      const derive = nameUuids(namespace);
      for (const name of names) expect(derive(name), name.slice(0, 40)).toBe(v5(name, namespace));
    }
  });

  it('given an id, then it is version 5 with the RFC variant', () => {
    expect(nameUuids(NODE_EVENT_NAMESPACE)('a')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
