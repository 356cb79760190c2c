#!/usr/bin/env python3
"""Standalone checker for the Chio checkpoint vector (Python 3.11, standard library only).

Usage: python3 check_checkpoint.py [VECTORS_DIR]

VECTORS_DIR defaults to the directory of this script and must contain receipt/chio-v1.json (the
shared ledger vector) and checkpoint/chio-checkpoint-v1.json. The format is DESIGN section 10: a
C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint) in a C2SP signed-note
(https://c2sp.org/signed-note) over the RFC 6962 tree of the ledger. Ed25519 and the check
bookkeeping come from check_vectors.py next to this file (the RFC 8032 section 6 reference code).

Prints one line per check group, then exactly "N passed, M failed".
Exits 0 when every check passed, 1 when any failed (or the vectors cannot be read).
"""

import base64
import hashlib
import json
import os
import sys

from check_vectors import Checker, secret_to_public, sign, verify

EM_DASH_SPACE = "\u2014 "


def sha256(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


def b64decode_strict(text):
    """Standard base64 with padding, canonical only (re-encodes to itself); None otherwise."""
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    return raw if base64.b64encode(raw).decode("ascii") == text else None


def key_hash(name, public_key):
    """C2SP Ed25519 key ID: SHA-256(key name || 0x0A || 0x01 || public key)[:4]."""
    return sha256(name.encode("utf-8"), b"\x0a\x01", public_key)[:4]


def valid_key_name(name):
    return name != "" and "+" not in name and not any(c.isspace() for c in name)


def open_note(note, public_key, expected_name):
    """Verifies a signed checkpoint note under one trusted key known by (expected_name, key hash).

    Returns (accepted, reason, (origin, size, root)). Lines by unknown keys are ignored; a line by
    the trusted key must verify; at least one must; the text is exactly three checkpoint lines.
    """
    data = note.encode("utf-8")
    if len(data) > 128 * 1024:
        return False, "note too large", None
    if any(ord(c) < 0x20 and c != "\n" for c in note):
        return False, "control character", None
    split = note.rfind("\n\n")
    if split < 0:
        return False, "no blank line", None
    text, block = note[: split + 1], note[split + 2 :]
    if block == "" or not block.endswith("\n"):
        return False, "no signature lines, or no final newline", None
    lines = text[:-1].split("\n")
    if len(lines) != 3 or "" in lines:
        return False, f"the text is not three non-empty lines: {lines!r}", None
    origin, size, root_b64 = lines
    if not size.isascii() or not size.isdigit() or (size != "0" and size.startswith("0")) or int(size) > 2**53 - 1:
        return False, f"tree size {size!r} is not canonical decimal within 2^53-1", None
    root = b64decode_strict(root_b64)
    if root is None or len(root) != 32:
        return False, "root hash is not 32 bytes of canonical base64", None
    wanted = key_hash(expected_name, public_key)
    verified = False
    sig_lines = block[:-1].split("\n")
    if len(sig_lines) > 100:
        return False, "too many signature lines", None
    for i, line in enumerate(sig_lines, 1):
        if not line.startswith(EM_DASH_SPACE):
            return False, f"signature line {i} does not start with an em dash and a space", None
        name, sep, encoded = line[len(EM_DASH_SPACE) :].partition(" ")
        raw = b64decode_strict(encoded) if sep else None
        if not valid_key_name(name) or raw is None or len(raw) < 5:
            return False, f"signature line {i} is malformed", None
        if name != expected_name or raw[:4] != wanted:
            continue  # an unknown key: C2SP says ignore it
        if len(raw) != 68 or not verify(public_key, text.encode("utf-8"), raw[4:]):
            return False, f"signature line {i} is by the trusted key but does not verify", None
        verified = True
    if not verified:
        return False, "no signature line by the trusted key", None
    return True, "verified", (origin, int(size), root)


def check(c, shared, vec):
    c.group("checkpoint tree (RFC 6962 over the chio-v1 ledger entry hashes)")
    entry_hashes = [e["entry_hash"] for e in shared["ledger"]["entries"]]
    c.equal("leaf inputs = the ledger's entry_hash values, in seq order", vec["tree"]["leaf_inputs_hex"], entry_hashes)
    leaves = [sha256(b"\x00", bytes.fromhex(h)) for h in entry_hashes]
    c.equal("leaf hashes = SHA-256(0x00 || entry_hash bytes)", vec["tree"]["leaf_hashes_hex"], [x.hex() for x in leaves])
    node01 = sha256(b"\x01", leaves[0], leaves[1])
    c.equal("node(0,1) = SHA-256(0x01 || leaf0 || leaf1)", vec["tree"]["node_0_1_hex"], node01.hex())
    root = sha256(b"\x01", node01, leaves[2])
    c.equal("root = SHA-256(0x01 || node(0,1) || leaf2) (3 leaves split at 2)", vec["tree"]["root_hex"], root.hex())
    c.equal("root_base64 = standard base64 of the root", vec["tree"]["root_base64"], base64.b64encode(root).decode("ascii"))
    c.equal("tree_size = number of ledger entries", vec["tree_size"], len(entry_hashes))

    c.group("checkpoint note text and key")
    seed = bytes.fromhex(vec["ed25519_seed_hex"])
    public_key = secret_to_public(seed)
    c.equal("ed25519_seed_hex = the chio-v1 seed", vec["ed25519_seed_hex"], shared["ed25519_seed_hex"])
    c.equal("ed25519_public_key_hex = public key of the seed", vec["ed25519_public_key_hex"], public_key.hex())
    origin = "chio-ledger/" + entry_hashes[0][:32]
    c.equal("origin = chio-ledger/ + first 32 hex of seq 1's entry_hash", vec["origin"], origin)
    text = f"{origin}\n{len(entry_hashes)}\n{base64.b64encode(root).decode('ascii')}\n"
    c.equal("note_text = origin, size, base64 root, each ending in a newline", vec["note_text"], text)
    c.equal("key_name = the origin (the default)", vec["key_name"], origin)
    kh_input = origin.encode("utf-8") + b"\x0a\x01" + public_key
    c.equal("key_hash_input = key name || 0x0A || 0x01 || public key", vec["key_hash_input_hex"], kh_input.hex())
    c.equal("key_hash = SHA-256(key_hash_input)[:4]", vec["key_hash_hex"], sha256(kh_input)[:4].hex())
    key_b64 = base64.b64encode(b"\x01" + public_key).decode("ascii")
    vkey = f"{origin}+{sha256(kh_input)[:4].hex()}+{key_b64}"
    c.equal("vkey = <name>+<key hash hex>+<base64(0x01 || public key)>", vec["vkey"], vkey)

    c.group("checkpoint signature")
    signature = sign(seed, text.encode("utf-8"))
    c.equal("signature_hex = Ed25519(seed, note_text) (deterministic)", vec["signature_hex"], signature.hex())
    c.check("signature verifies over note_text (final newline included)", verify(public_key, text.encode("utf-8"), signature), "Ed25519 verify failed")
    c.check("the signature does not verify over the text without its final newline", not verify(public_key, text[:-1].encode("utf-8"), signature), "it did")
    line = EM_DASH_SPACE + origin + " " + base64.b64encode(sha256(kh_input)[:4] + signature).decode("ascii") + "\n"
    c.equal("signature_line = em dash, space, key name, space, base64(key hash || signature), newline", vec["signature_line"], line)
    c.equal("signed_note = note_text, an empty line, the signature line", vec["signed_note"], text + "\n" + line)
    ok, reason, parsed = open_note(vec["signed_note"], public_key, origin)
    c.check("signed_note opens under the public key", ok, reason)
    if ok:
        c.equal("the opened checkpoint is (origin, size, root)", parsed, (origin, len(entry_hashes), root))

    c.group("checkpoint cases (expected accept/reject)")
    for case in vec["cases"]:
        trusted = bytes.fromhex(case["trusted_key_hex"])
        ok, reason, _ = open_note(case["signed_note"], trusted, case["key_name"])
        c.check(f"{case['name']}: expected {case['expected']}", ("accept" if ok else "reject") == case["expected"], f"got {'accept' if ok else 'reject'}: {reason}")
    names = {case["name"] for case in vec["cases"]}
    c.check("the cases include tampered_size and wrong_key", {"tampered_size", "wrong_key"} <= names, f"cases: {sorted(names)}")
    c.check("at least one case is expected to be rejected", any(x["expected"] == "reject" for x in vec["cases"]), "none")


def main(argv):
    base = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    try:
        def load(rel):
            with open(os.path.join(base, rel), encoding="utf-8") as f:
                return json.load(f)
        shared, vec = load("receipt/chio-v1.json"), load("checkpoint/chio-checkpoint-v1.json")
    except (OSError, ValueError) as e:
        print(f"cannot read the vectors under {base}: {e}")
        print("0 passed, 1 failed")
        return 1
    c = Checker()
    c.group("checkpoint")
    c.run("checkpoint checks", lambda: check(c, shared, vec))
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
