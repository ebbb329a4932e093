#!/usr/bin/env python3
"""Checks a Cogitave log export against a digest, as an outside auditor would.

Written from the algorithm in services/audit/README.md only, with the Python standard library
and nothing of the product's code. Ed25519 verification follows RFC 8032 section 5.1.7.

    python3 verify_export.py EXPORT.jsonl DIGEST.json [PUBLIC_KEY_BASE64]

Prints one line and exits 0 when the export is consistent and the digest holds for it (and,
when a public key is given, the digest is signed with it); otherwise prints what is wrong
(naming the line) and exits 1.
"""
import base64
import hashlib
import json
import sys


def hex_sha256(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- Ed25519 verification (RFC 8032, 5.1.7) ---------------------------------------------

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def point_add(a, b):
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def point_mul(scalar, point):
    result = (0, 1, 1, 0)
    while scalar > 0:
        if scalar & 1:
            result = point_add(result, point)
        point = point_add(point, point)
        scalar >>= 1
    return result


def point_equal(a, b):
    x1, y1, z1, _ = a
    x2, y2, z2, _ = b
    return (x1 * z2 - x2 * z1) % P == 0 and (y1 * z2 - y2 * z1) % P == 0


def recover_x(y, sign):
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


def decompress(data):
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


BASE_Y = 4 * pow(5, P - 2, P) % P
BASE = (recover_x(BASE_Y, 0), BASE_Y, 1, recover_x(BASE_Y, 0) * BASE_Y % P)


def ed25519_verify(public, message, signature):
    if len(public) != 32 or len(signature) != 64:
        return False
    a = decompress(public)
    r = decompress(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % L
    return point_equal(point_mul(s, BASE), point_add(r, point_mul(k, a)))


# --- The export and the digest ------------------------------------------------------------


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def check(export_path, digest_path, public_key=None):
    with open(digest_path, encoding="utf-8") as handle:
        lines = [line for line in handle.read().splitlines() if line.strip()]
    digest = json.loads(lines[-1])
    if digest.get("format") != "cogitave-digest/1":
        fail("the digest is not a cogitave-digest/1")

    heads = {}
    log_hash = ""
    count = 0
    at_digest = None
    with open(export_path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            event = json.loads(line)
            where = "line %d (stream %s revision %s)" % (number, event["streamId"], event["revision"])
            if event["sequence"] != count:
                fail("%s: sequence %s where %d was due" % (where, event["sequence"], count))
            content = json.loads(event["content"])
            for key in ("id", "streamId", "type"):
                if content.get(key) != event[key]:
                    fail("%s: the content names another %s" % (where, key))
            previous = heads.get(event["streamId"])
            expected_revision = 0 if previous is None else previous[0] + 1
            if event["revision"] != expected_revision:
                fail("%s: revision %d was due" % (where, expected_revision))
            prev_hash = None if previous is None else previous[1]
            if event["prevHash"] != prev_hash:
                fail("%s: prevHash is not the previous event's hash" % where)
            recomputed = hex_sha256("%s:%d:%s" % (prev_hash or "", event["revision"], hex_sha256(event["content"])))
            if recomputed != event["hash"]:
                fail("%s: the content does not hash to its hash" % where)
            heads[event["streamId"]] = (event["revision"], event["hash"])
            log_hash = hex_sha256("%s:%d:%s" % (log_hash, count, event["hash"]))
            if log_hash != event["logHash"]:
                fail("%s: logHash does not follow from the previous events" % where)
            if count == digest["events"] - 1:
                at_digest = (event, log_hash)
            count += 1

    if digest["events"] > count:
        fail("the export has %d events, the digest covers %d" % (count, digest["events"]))
    if digest["events"] > 0:
        event, root = at_digest
        last = digest["last"]
        if event["position"] != digest["position"] or event["id"] != last["id"] or \
                event["streamId"] != last["streamId"] or event["revision"] != last["revision"]:
            fail("event %d of the export is not the digest's last event" % (digest["events"] - 1))
        if root != digest["root"]:
            fail("the first %d events do not hash to the digest's root" % digest["events"])

    signed = "unsigned"
    if "signature" in digest:
        unsigned = {key: value for key, value in digest.items() if key not in ("publicKey", "signature")}
        message = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        key = base64.b64decode(digest["publicKey"])
        if public_key is not None and key != base64.b64decode(public_key):
            fail("the digest is signed with another key")
        if not ed25519_verify(key, message, base64.b64decode(digest["signature"])):
            fail("the digest's signature does not hold")
        signed = "signature valid"
    elif public_key is not None:
        fail("the digest is not signed")

    print("OK: %d events, %d streams; digest of %d events holds (%s)" % (count, len(heads), digest["events"], signed))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        sys.exit(2)
    check(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None)
