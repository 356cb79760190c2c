#!/usr/bin/env python3
"""Standalone checker for Chio's Merkle tree vectors (Python 3.11, standard library only).

Usage: python3 check_merkle.py [VECTORS_DIR]

VECTORS_DIR defaults to the directory of this script and must contain merkle/chio-merkle-v1.json and
merkle/transparency-dev/ (testdata/inclusion/**, testdata/consistency/**, testonly/constants.go);
receipt/chio-v1.json is used, when present, to confirm that the leaves are the ledger's entry hashes.
See README.md next to this file for the formats being checked.

The tree is RFC 6962 §2.1 (= RFC 9162 §2.1) with SHA-256: leaf_hash = SHA-256(0x00 || leaf input),
node = SHA-256(0x01 || left || right). In Chio the leaf input is the 32 raw bytes of a ledger entry's
entry_hash (DESIGN §10). Proofs are generated here from the RFC's recursive definitions (PATH, PROOF)
and verified with the RFC 9162 §2.1.3.2 / §2.1.4.2 algorithms, written independently of the
TypeScript code. Chio's verifier rules, which this checker applies too: every hash (leaf, root, proof
element) is exactly 32 bytes, sizes and indexes are integers in 0..2^53-1, and a consistency proof
from an old size of 0 is refused.

Prints one line per check group, then exactly "N passed, M failed".
Exits 0 when every check passed, 1 when any failed (or the vectors cannot be read).
"""

import base64
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_vectors import Checker as VectorsChecker  # noqa: E402

HASH_BYTES = 32
MAX_SAFE = 2**53 - 1

# ---------------------------------------------------------------------------
# RFC 6962 §2.1: the tree, its audit paths and consistency proofs (recursive, as written in the RFC).
# `d` is always a list of leaf hashes, so MTH of one leaf is that leaf hash.
# ---------------------------------------------------------------------------


def sha256(data):
    return hashlib.sha256(data).digest()


def leaf_hash(leaf_input):
    return sha256(b"\x00" + leaf_input)


def node_hash(left, right):
    return sha256(b"\x01" + left + right)


def split(n):
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(d):
    if len(d) == 0:
        return sha256(b"")
    if len(d) == 1:
        return d[0]
    k = split(len(d))
    return node_hash(mth(d[:k]), mth(d[k:]))


def path(m, d):
    if len(d) == 1:
        return []
    k = split(len(d))
    if m < k:
        return path(m, d[:k]) + [mth(d[k:])]
    return path(m - k, d[k:]) + [mth(d[:k])]


def subproof(m, d, b):
    n = len(d)
    if m == n:
        return [] if b else [mth(d)]
    k = split(n)
    if m <= k:
        return subproof(m, d[:k], b) + [mth(d[k:])]
    return subproof(m - k, d[k:], False) + [mth(d[:k])]


def consistency(m, d):
    return subproof(m, d, True)


# ---------------------------------------------------------------------------
# RFC 9162 verification, with Chio's input rules. Python ints do not overflow, so the shifts are exact.
# ---------------------------------------------------------------------------


def is_hash(h):
    return isinstance(h, (bytes, bytearray)) and len(h) == HASH_BYTES


def is_count(n):
    return isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_SAFE


def verify_inclusion(leaf, index, size, proof, root):
    """RFC 9162 §2.1.3.2."""
    if not (is_hash(leaf) and is_hash(root) and is_count(index) and is_count(size)):
        return False
    if not isinstance(proof, list) or not all(is_hash(p) for p in proof):
        return False
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(first, second, proof, first_hash, second_hash):
    """RFC 9162 §2.1.4.2; equal sizes need an empty proof and equal roots; first = 0 is refused."""
    if not (is_hash(first_hash) and is_hash(second_hash) and is_count(first) and is_count(second)):
        return False
    if not isinstance(proof, list) or not all(is_hash(p) for p in proof):
        return False
    if first == 0 or first > second:
        return False
    if first == second:
        return len(proof) == 0 and first_hash == second_hash
    if len(proof) == 0:
        return False
    if first & (first - 1) == 0:  # an exact power of two: its root is the path's first node
        proof = [first_hash] + proof
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == first_hash and sr == second_hash


def flip(h, bit=0):
    b = bytearray(h)
    b[bit // 8] ^= 1 << (bit % 8)
    return bytes(b)


# ---------------------------------------------------------------------------
# Check bookkeeping: one output line per group, details only for failures (as in check_vectors.py).
# ---------------------------------------------------------------------------


class Checker(VectorsChecker):
    """check_vectors.py's bookkeeping; a raising check may also come before any group is opened."""

    def run(self, name, fn):
        if self._group is None:
            self.group(name)
        return super().run(name, fn)


# ---------------------------------------------------------------------------
# The checks.
# ---------------------------------------------------------------------------


def unhex(s):
    if not isinstance(s, str) or not re.fullmatch(r"(?:[0-9a-f]{2})*", s):
        raise ValueError(f"not lowercase hex: {s!r}")
    return bytes.fromhex(s)


def check_self_test(c):
    """The verifiers accept every proof of the RFC definitions for sizes 1..16 and refuse a flipped bit."""
    c.group("self-test: RFC 9162 verifiers against RFC 6962 proofs, sizes 1..16")
    leaves = [leaf_hash(bytes([i])) for i in range(16)]
    ok_incl = bad_incl = ok_cons = bad_cons = True
    for n in range(1, 17):
        d, root = leaves[:n], mth(leaves[:n])
        for m in range(n):
            p = path(m, d)
            ok_incl &= verify_inclusion(d[m], m, n, p, root)
            bad_incl &= not verify_inclusion(d[m], m, n, p, flip(root))
            bad_incl &= all(not verify_inclusion(d[m], m, n, p[:i] + [flip(p[i], 9)] + p[i + 1:], root) for i in range(len(p)))
        for m in range(1, n + 1):
            p = consistency(m, d)
            ok_cons &= verify_consistency(m, n, p, mth(d[:m]), root)
            bad_cons &= all(not verify_consistency(m, n, p[:i] + [flip(p[i], 9)] + p[i + 1:], mth(d[:m]), root) for i in range(len(p)))
    c.check("every inclusion proof verifies", ok_incl)
    c.check("a flipped bit in an inclusion proof or root is refused", bad_incl)
    c.check("every consistency proof verifies", ok_cons)
    c.check("a flipped bit in a consistency proof is refused", bad_cons)


def parse_constants(text):
    def body(fn):
        start = text.index(f"func {fn}()")
        return text[start:text.index("\n}\n", start)]

    def hds(s):
        return [bytes.fromhex(h) for h in re.findall(r'hd\("([0-9a-f]*)"\)', s)]

    return hds(body("LeafInputs")), [hds(level) for level in body("NodeHashes").split("}, {")], hds(body("EmptyRootHash")) + hds(body("RootHashes"))


def check_reference_tree(c, constants):
    c.group("transparency-dev testonly/constants.go: RFC 6962 reference tree")
    inputs, nodes, roots = parse_constants(constants)
    c.equal("8 leaf inputs, 4 levels of nodes, 9 roots", (len(inputs), [len(l) for l in nodes], len(roots)), (8, [8, 4, 2, 1], 9))
    leaves = [leaf_hash(x) for x in inputs]
    c.equal("leaf hashes = NodeHashes level 0", [h.hex() for h in leaves], [h.hex() for h in nodes[0]])
    for level, row in enumerate(nodes):
        for i, h in enumerate(row):
            c.equal(f"node {level}/{i} = MTH of its leaves", mth(leaves[i << level:(i + 1) << level]).hex(), h.hex())
    for size, root in enumerate(roots):
        c.equal(f"root of size {size}", mth(leaves[:size]).hex(), root.hex())
    for n in range(1, 9):
        for m in range(n):
            c.check(f"inclusion {m} in {n} verifies against the published root", verify_inclusion(leaves[m], m, n, path(m, leaves[:n]), roots[n]))
        for m in range(1, n + 1):
            c.check(f"consistency {m} -> {n} verifies against the published roots",
                    verify_consistency(m, n, consistency(m, leaves[:n]), roots[m], roots[n]))


def b64(v):
    """Go's encoding/json []byte: standard base64; null or absent is empty."""
    return base64.b64decode(v, validate=True) if isinstance(v, str) else b""


def b64s(v):
    return [b64(x) for x in v] if isinstance(v, list) else []


# The one probe where Chio's verdict differs from the Go test's: its roots are 12 bytes. Go's
# VerifyConsistency returns root1 unchecked when size1 == size2 and compares it with root2; Chio refuses
# any hash that is not 32 bytes. Every other probe must come out exactly as the Go test expects.
CHIO_REFUSES_GO_ACCEPTS = {"consistency/additional/sizes-are-equal-one-and-proof-is-empty.json"}


def check_probes(c, base, kind):
    root_dir = os.path.join(base, "merkle", "transparency-dev", "testdata", kind)
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root_dir) for f in fs if f.endswith(".json"))
    c.group(f"transparency-dev testdata/{kind}: {len(files)} probes")
    c.check(f"{kind} probes present", len(files) > 0, f"none under {root_dir}")
    for path_ in files:
        rel = os.path.relpath(path_, os.path.dirname(root_dir)).replace(os.sep, "/")
        with open(path_, encoding="utf-8") as f:
            p = json.load(f)
        if kind == "inclusion":
            hashes = [b64(p.get("leafHash")), b64(p.get("root"))] + b64s(p.get("proof"))
            got = verify_inclusion(b64(p.get("leafHash")), p.get("leafIdx", 0), p.get("treeSize", 0), b64s(p.get("proof")), b64(p.get("root")))
        else:
            hashes = [b64(p.get("root1")), b64(p.get("root2"))] + b64s(p.get("proof"))
            got = verify_consistency(p.get("size1", 0), p.get("size2", 0), b64s(p.get("proof")), b64(p.get("root1")), b64(p.get("root2")))
        want = not p["wantErr"]
        if rel in CHIO_REFUSES_GO_ACCEPTS:
            c.check(f"{rel}: Go accepts it and it has a hash that is not 32 bytes",
                    want and any(len(h) != HASH_BYTES for h in hashes), "the documented difference no longer applies")
            want = False
        c.check(f"{rel} ({p.get('desc')}): {'verifies' if want else 'is refused'}", got == want,
                f"got {'verifies' if got else 'refused'}")


def check_chio(c, vec, ledger):
    c.group("chio-merkle-v1: leaves, subtrees and roots")
    c.equal("empty_tree_root = SHA-256 of nothing", vec["empty_tree_root"], sha256(b"").hex())
    entry_hashes = [unhex(l["entry_hash"]) for l in vec["leaves"]]
    c.check("every entry_hash is 32 bytes", all(len(h) == HASH_BYTES for h in entry_hashes))
    if ledger is not None:
        c.equal("leaves are the entry hashes of receipt/chio-v1.json in seq order",
                [(l["seq"], l["entry_hash"]) for l in vec["leaves"]], [(e["seq"], e["entry_hash"]) for e in ledger["entries"]])
    leaves = [leaf_hash(h) for h in entry_hashes]
    for i, l in enumerate(vec["leaves"]):
        c.equal(f"leaf {i}: seq = leaf_index + 1 = {i + 1}", (l["seq"], l["leaf_index"]), (i + 1, i))
        c.equal(f"leaf {i}: leaf_hash = SHA-256(0x00 || entry_hash bytes)", l["leaf_hash"], leaves[i].hex())
    n = len(leaves)
    expected_subtrees = sorted((lv, i) for lv in range(n.bit_length()) for i in range(n >> lv))
    c.equal("subtrees: every perfect subtree of the tree, once", sorted((s["level"], s["index"]) for s in vec["subtrees"]), expected_subtrees)
    for s in vec["subtrees"]:
        lv, i = s["level"], s["index"]
        c.equal(f"subtree {lv}/{i} = MTH of leaves [{i << lv}, {(i + 1) << lv})", s["hash"], mth(leaves[i << lv:(i + 1) << lv]).hex())
    roots = {}
    c.equal("a root for every size 1..n", [r["tree_size"] for r in vec["roots"]], list(range(1, n + 1)))
    for r in vec["roots"]:
        c.equal(f"root of size {r['tree_size']} = MTH", r["root"], mth(leaves[:r["tree_size"]]).hex())
        roots[r["tree_size"]] = unhex(r["root"])

    c.group("chio-merkle-v1: inclusion proofs (chio.inclusion-proof.v1)")
    proofs = vec["inclusion_proofs"]
    c.equal("one proof for every leaf of every tree size", sorted((p["leaf_index"], p["tree_size"]) for p in proofs),
            sorted((m, size) for size in range(1, n + 1) for m in range(size)))
    for p in proofs:
        m, size = p["leaf_index"], p["tree_size"]
        name = f"leaf {m} in size {size}"
        c.equal(f"{name}: members", list(p), ["schema", "seq", "leaf_index", "tree_size", "entry_hash", "hashes"])
        c.equal(f"{name}: schema", p["schema"], "chio.inclusion-proof.v1")
        c.equal(f"{name}: seq = leaf_index + 1", p["seq"], m + 1)
        c.equal(f"{name}: entry_hash is the leaf's", p["entry_hash"], vec["leaves"][m]["entry_hash"])
        c.equal(f"{name}: hashes = PATH(m, D[n]) (RFC 6962 §2.1.1)", p["hashes"], [h.hex() for h in path(m, leaves[:size])])
        hashes = [unhex(h) for h in p["hashes"]]
        leaf = leaf_hash(unhex(p["entry_hash"]))
        c.check(f"{name}: verifies against the root of size {size}", verify_inclusion(leaf, m, size, hashes, roots.get(size)))
        c.check(f"{name}: a flipped bit in any hash is refused",
                all(not verify_inclusion(leaf, m, size, hashes[:i] + [flip(hashes[i], 77)] + hashes[i + 1:], roots.get(size)) for i in range(len(hashes))))

    c.group("chio-merkle-v1: consistency proofs (chio.consistency-proof.v1)")
    proofs = vec["consistency_proofs"]
    c.equal("one proof for every pair 1 <= old_size <= new_size <= n", sorted((p["old_size"], p["new_size"]) for p in proofs),
            sorted((m, size) for size in range(1, n + 1) for m in range(1, size + 1)))
    for p in proofs:
        m, size = p["old_size"], p["new_size"]
        name = f"{m} -> {size}"
        c.equal(f"{name}: members", list(p), ["schema", "old_size", "new_size", "hashes"])
        c.equal(f"{name}: schema", p["schema"], "chio.consistency-proof.v1")
        c.equal(f"{name}: hashes = PROOF(m, D[n]) (RFC 6962 §2.1.2)", p["hashes"], [h.hex() for h in consistency(m, leaves[:size])])
        hashes = [unhex(h) for h in p["hashes"]]
        c.check(f"{name}: verifies against the roots", verify_consistency(m, size, hashes, roots.get(m), roots.get(size)))
        c.check(f"{name}: a flipped bit in any hash is refused",
                all(not verify_consistency(m, size, hashes[:i] + [flip(hashes[i], 77)] + hashes[i + 1:], roots.get(m), roots.get(size))
                    for i in range(len(hashes))))


def main(argv):
    base = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    try:
        with open(os.path.join(base, "merkle", "chio-merkle-v1.json"), encoding="utf-8") as f:
            chio = json.load(f)
        with open(os.path.join(base, "merkle", "transparency-dev", "testonly", "constants.go"), encoding="utf-8") as f:
            constants = f.read()
        ledger = None
        receipt_path = os.path.join(base, "receipt", "chio-v1.json")
        if os.path.exists(receipt_path):
            with open(receipt_path, encoding="utf-8") as f:
                ledger = json.load(f)["ledger"]
    except (OSError, ValueError, KeyError) as e:
        print(f"cannot read the vectors under {base}: {e}")
        print("0 passed, 1 failed")
        return 1

    c = Checker()
    c.run("self-test", lambda: check_self_test(c))
    c.run("reference tree", lambda: check_reference_tree(c, constants))
    for kind in ("inclusion", "consistency"):
        c.run(f"{kind} probes", lambda: check_probes(c, base, kind))
    c.run("chio-merkle-v1", lambda: check_chio(c, chio, ledger))
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
