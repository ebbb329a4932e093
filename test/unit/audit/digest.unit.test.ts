import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkSignature,
  DIGEST_FORMAT,
  formatDigest,
  loadPublicKey,
  loadSigningKey,
  parseDigest,
  rawPublicKey,
  signDigest,
  signedBytes,
  type UnsignedDigest,
} from '../../../services/audit/digest.js';
import { logLinkHash } from '../../../services/audit/log-chain.js';
import { InvalidArgument } from '../../../services/runtime/errors.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const digest: UnsignedDigest = {
  format: DIGEST_FORMAT,
  events: 3,
  position: '0000000000000010-0000000000000003',
  last: {
    streamId: 'request-req-2026-0001',
    revision: 2,
    id: '00000000-0000-4000-8000-000000000003',
  },
  root: 'a'.repeat(64),
  at: '2026-12-01T21:40:00.000Z',
};

const keyPair = () => generateKeyPairSync('ed25519');

describe('the global chain', () => {
  it('given a previous link, a sequence and an event hash, when linked, then the link is sha256 of "prev:sequence:hash"', () => {
    expect(logLinkHash(null, 0n, 'h0')).toBe(sha256(':0:h0'));
    expect(logLinkHash('l0', 1n, 'h1')).toBe(sha256('l0:1:h1'));
  });
});

describe('digests', () => {
  it('given a digest, when formatted and parsed, then it is one line of RFC 8785 JSON that reads back equal', () => {
    const text = formatDigest(digest);
    expect(text).not.toContain('\n');
    expect(text.startsWith('{"at":"2026-12-01T21:40:00.000Z","events":3,"format":')).toBe(true);
    expect(parseDigest(text)).toEqual(digest);
  });

  it.each([
    ['not JSON', 'digest', /not JSON/],
    ['another format', JSON.stringify({ ...digest, format: 'x/1' }), /format must be/],
    [
      'a root without events',
      JSON.stringify({ ...digest, events: 0 }),
      /root is null exactly when/,
    ],
    ['a bad root', JSON.stringify({ ...digest, root: 'xyz' }), /64 lowercase hex/],
    ['an unknown field', JSON.stringify({ ...digest, extra: 1 }), /extra/],
    [
      'a signature without its key',
      JSON.stringify({ ...digest, signature: 'AAAA' }),
      /come together/,
    ],
  ])('given %s, when parsed, then it is refused saying why', (_what, text, why) => {
    expect(() => parseDigest(text)).toThrow(InvalidArgument);
    expect(() => parseDigest(text)).toThrow(why);
  });

  it('given a signing key, when a digest is signed, then the signature covers the RFC 8785 JSON of the other fields and holds', () => {
    const { privateKey, publicKey } = keyPair();
    const signed = signDigest(digest, privateKey);
    expect(signed.publicKey).toBe(rawPublicKey(publicKey));
    expect(signedBytes(signed).toString('utf8')).toBe(formatDigest(digest));
    expect(checkSignature(signed)).toEqual({ status: 'valid', pinned: false });
    expect(checkSignature(signed, publicKey)).toEqual({ status: 'valid', pinned: true });
  });

  it('given a signed digest with one field changed, when checked, then the signature does not hold', () => {
    const signed = signDigest(digest, keyPair().privateKey);
    expect(checkSignature({ ...signed, events: 4 }).status).toBe('invalid');
    expect(checkSignature({ ...signed, root: 'b'.repeat(64) }).status).toBe('invalid');
  });

  it('given a digest signed with another key, when checked against the configured key, then it is named as another key', () => {
    const signed = signDigest(digest, keyPair().privateKey);
    expect(checkSignature(signed, keyPair().publicKey)).toEqual({
      status: 'other-key',
      pinned: true,
    });
  });

  it('given an unsigned digest, when checked, then it is unsigned, pinned or not', () => {
    expect(checkSignature({ ...digest })).toEqual({ status: 'unsigned', pinned: false });
    expect(checkSignature({ ...digest }, keyPair().publicKey).status).toBe('unsigned');
  });

  it('given PEM keys and a raw public key, when loaded, then they round-trip; other key types are refused', () => {
    const { privateKey, publicKey } = keyPair();
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(
      rawPublicKey(loadPublicKey(publicKey.export({ type: 'spki', format: 'pem' }).toString())),
    ).toBe(rawPublicKey(publicKey));
    expect(rawPublicKey(loadPublicKey(rawPublicKey(publicKey)))).toBe(rawPublicKey(publicKey));
    expect(loadSigningKey(pem).asymmetricKeyType).toBe('ed25519');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() =>
      loadSigningKey(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    ).toThrow(/Ed25519/);
    expect(() => loadPublicKey('AAAA')).toThrow(/32 bytes/);
  });
});
