import {
  createPrivateKey,
  createPublicKey,
  sign as signBytes,
  verify as verifyBytes,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../event-store/hash-chain.js';
import { InvalidArgument } from '../runtime/errors.js';

/**
 * A digest commits to the log up to one event: how many events, the store position and
 * identity of the last one, and the global chain's link there (`root`, see log-chain.ts), at
 * a time. Published outside the database, it lets `verify` notice what a database alone
 * cannot show: the newest events or whole streams removed, the log rewritten and re-hashed.
 *
 * Signed when an Ed25519 key is configured: `signature` is the Ed25519 signature (RFC 8032,
 * base64) of the UTF-8 bytes of the RFC 8785 JSON of every other field, `publicKey` the raw
 * 32-byte public key (base64).
 */
export const DIGEST_FORMAT = 'cogitave-digest/1';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits');
const base64 = z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64');

const digestSchema = z
  .object({
    format: z.literal(DIGEST_FORMAT, `format must be "${DIGEST_FORMAT}"`),
    events: z.number().int().nonnegative(),
    position: z.string().min(1).nullable(),
    last: z
      .object({
        streamId: z.string().min(1),
        revision: z.number().int().nonnegative(),
        id: z.string().min(1),
      })
      .strict()
      .nullable(),
    root: hex64.nullable(),
    at: z.iso.datetime({ offset: true }),
    publicKey: base64.optional(),
    signature: base64.optional(),
  })
  .strict()
  .refine((d) => (d.events === 0) === (d.root === null), {
    error: 'root is null exactly when events is 0',
  })
  .refine((d) => (d.root === null) === (d.position === null && d.last === null), {
    error: 'position and last are null exactly when root is',
  })
  .refine((d) => (d.publicKey === undefined) === (d.signature === undefined), {
    error: 'publicKey and signature come together',
  });

export type Digest = z.output<typeof digestSchema>;
export type UnsignedDigest = Omit<Digest, 'publicKey' | 'signature'>;

/** The bytes a signature covers: RFC 8785 JSON of the digest without its signature fields. */
export const signedBytes = (digest: UnsignedDigest | Digest): Buffer => {
  const unsigned: UnsignedDigest = {
    format: digest.format,
    events: digest.events,
    position: digest.position,
    last: digest.last,
    root: digest.root,
    at: digest.at,
  };
  return Buffer.from(canonicalJson(unsigned), 'utf8');
};

/** One line of JSON, the form published and accepted by `verify --digest`. */
export const formatDigest = (digest: Digest): string => canonicalJson(digest);

export const parseDigest = (text: string, source = 'the digest'): Digest => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidArgument(
      `${source} is not JSON; a digest is one line of JSON as printed by "cogitave digest"`,
    );
  }
  const parsed = digestSchema.safeParse(value);
  if (!parsed.success) {
    throw new InvalidArgument(
      `${source} is not a ${DIGEST_FORMAT} digest: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'digest'} ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
};

// ---------------------------------------------------------------------------------------------
// Keys

/** The raw 32-byte Ed25519 public key, base64. */
export const rawPublicKey = (key: KeyObject): string => {
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new InvalidArgument('the key is not an Ed25519 key');
  return Buffer.from(jwk.x, 'base64url').toString('base64');
};

const publicKeyFromRaw = (raw: string): KeyObject => {
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length !== 32) {
    throw new InvalidArgument(`an Ed25519 public key is 32 bytes (got ${bytes.length})`);
  }
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: bytes.toString('base64url') },
    format: 'jwk',
  });
};

const assertEd25519 = (key: KeyObject, what: string): KeyObject => {
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new InvalidArgument(
      `${what} is a ${key.asymmetricKeyType ?? 'symmetric'} key; digests are signed with Ed25519 (openssl genpkey -algorithm ed25519)`,
    );
  }
  return key;
};

/** A PEM (PKCS#8) Ed25519 private key. */
export const loadSigningKey = (pem: string, what = 'the signing key'): KeyObject => {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new InvalidArgument(`${what} is not a PEM private key (${(error as Error).message})`);
  }
  return assertEd25519(key, what);
};

/** A PEM (SPKI) Ed25519 public key, or its 32 raw bytes in base64. */
export const loadPublicKey = (text: string, what = 'the public key'): KeyObject => {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    let key: KeyObject;
    try {
      key = createPublicKey(trimmed);
    } catch (error) {
      throw new InvalidArgument(`${what} is not a PEM public key (${(error as Error).message})`);
    }
    return assertEd25519(key, what);
  }
  return publicKeyFromRaw(trimmed);
};

export const signDigest = (digest: UnsignedDigest, key: KeyObject): Digest => ({
  ...digest,
  publicKey: rawPublicKey(createPublicKey(key)),
  signature: signBytes(null, signedBytes(digest), key).toString('base64'),
});

export type SignatureStatus =
  /** Signed, and the signature holds for the trusted key (or for its own key when none is). */
  | 'valid'
  /** Signed with a key other than the trusted one. */
  | 'other-key'
  | 'invalid'
  | 'unsigned';

export interface SignatureCheck {
  readonly status: SignatureStatus;
  /** Whether a trusted key was compared (else a valid signature only proves self-consistency). */
  readonly pinned: boolean;
}

export const checkSignature = (digest: Digest, trusted?: KeyObject): SignatureCheck => {
  const pinned = trusted !== undefined;
  if (digest.signature === undefined || digest.publicKey === undefined) {
    return { status: 'unsigned', pinned };
  }
  if (trusted && rawPublicKey(trusted) !== digest.publicKey) return { status: 'other-key', pinned };
  let key: KeyObject;
  try {
    key = trusted ?? publicKeyFromRaw(digest.publicKey);
  } catch {
    return { status: 'invalid', pinned };
  }
  const ok = verifyBytes(null, signedBytes(digest), key, Buffer.from(digest.signature, 'base64'));
  return { status: ok ? 'valid' : 'invalid', pinned };
};
