#!/usr/bin/env python3
"""Standalone checker for the Chio evidence bundle vector (Python 3.11, standard library only).

Usage: python3 check_evidence.py [VECTORS_DIR]

VECTORS_DIR defaults to the directory of this script and must contain receipt/chio-v1.json (the
shared ledger vector) and evidence/chio-evidence-v1.json; checkpoint/chio-checkpoint-v1.json,
merkle/chio-merkle-v1.json and certificate/chio-certificate-v1.json are cross-checked when present.

An evidence bundle (chio.evidence-bundle.v1, DESIGN section 10) holds one session's ledger entries,
an inclusion proof of each against one signed checkpoint, that checkpoint's note and the session's
compliance certificate. It is checked offline, with only trusted public keys, in the order of
src/projections/evidence/verify.ts, and the first failure is the verdict:

  schema        the bundle's members and their shapes (strict: no other members);
  checkpoint    the note verifies under a trusted kernel key (key name = the note's origin);
  inclusion     as many proofs as entries;
  then for each entry, in order:
  entry         it belongs to the bundle's session;
  session_chain the first entry has session_prev_seq null, each later one links to the one before;
  receipt       the body is JSON; the receipt's id, semantic rule, trusted kernel_key, signature
                and (unredacted) parameter_hash check;
  entry_hash    the entry hash recomputed from seq, prev_hash, sha256(body), session fields;
  inclusion     its proof is for this entry, against the checkpoint's tree size, and leads to the
                checkpoint's root (RFC 9162 section 2.1.3.2);
  certificate   a trusted signer (an authority key, or a kernel key signing its own session), the
                signature over JCS(body), no recorded failure, a trusted kernel_key; then its session,
                receipt_count and ledger_binding match the entries.

Ed25519, JCS and the check bookkeeping come from check_vectors.py, the RFC 6962 tree code from
check_merkle.py and the signed-note code from check_checkpoint.py, all next to this file. JSON is
parsed strictly (duplicate member names and numbers with a fraction or exponent are refused).

Prints one line per check group, then exactly "N passed, M failed".
Exits 0 when every check passed, 1 when any failed (or the vectors cannot be read).
"""

import copy
import os
import sys

from check_checkpoint import EM_DASH_SPACE, b64decode_strict, key_hash, open_note
from check_merkle import leaf_hash, mth, verify_inclusion
from check_vectors import (LEDGER_SCHEMA, SEMANTIC_RULES, Checker, H, NotCanonical, is_hex, jcs, parse_json,
                           secret_to_public, sha256_hex, sign, verify, without)

BUNDLE_SCHEMA = "chio.evidence-bundle.v1"
PROOF_SCHEMA = "chio.inclusion-proof.v1"
CERTIFICATE_SCHEMA = "chio.compliance.certificate.v1"
MAX_SAFE = 2**53 - 1
CERTIFICATE_FLAGS = ("all_signatures_valid", "chain_continuous", "scope_compliant", "budget_compliant", "guards_compliant")

# ---------------------------------------------------------------------------
# Shapes (the zod schemas of src/projections/evidence/schema.ts and the certificate's). The bundle is
# attacker-controlled: nothing below the schema step runs on a bundle that fails it.
# ---------------------------------------------------------------------------


def is_int(n, low, high=MAX_SAFE):
    return isinstance(n, int) and not isinstance(n, bool) and low <= n <= high


def is_str(s, low, high):
    return isinstance(s, str) and low <= len(s) <= high


def members(obj, names):
    """None when obj is an object with exactly these members, else what is wrong."""
    if not isinstance(obj, dict):
        return f"not an object: {type(obj).__name__}"
    missing, extra = sorted(set(names) - set(obj)), sorted(set(obj) - set(names))
    return None if not missing and not extra else f"missing {missing}, unexpected {extra}"


def entry_problem(e):
    return members(e, ("seq", "prev_hash", "entry_hash", "session_id", "session_prev_seq", "body")) or next((
        why for ok, why in (
            (is_int(e["seq"], 1), "seq is not an integer in 1..2^53-1"),
            (is_hex(e["prev_hash"], 64) and is_hex(e["entry_hash"], 64), "prev_hash or entry_hash is not 64 lowercase hex"),
            (is_str(e["session_id"], 1, 256), "session_id is not a string of 1..256 characters"),
            (e["session_prev_seq"] is None or is_int(e["session_prev_seq"], 1), "session_prev_seq is neither null nor a seq"),
            (is_str(e["body"], 2, 1024 * 1024), "body is not a string of 2 characters to 1 MiB"),
        ) if not ok), None)


def proof_problem(p):
    return members(p, ("schema", "seq", "leaf_index", "tree_size", "entry_hash", "hashes")) or next((
        why for ok, why in (
            (p["schema"] == PROOF_SCHEMA, f"schema is not {PROOF_SCHEMA}"),
            (is_int(p["seq"], 1) and is_int(p["leaf_index"], 0) and is_int(p["tree_size"], 1), "seq, leaf_index or tree_size out of range"),
            (is_hex(p["entry_hash"], 64), "entry_hash is not 64 lowercase hex"),
            (isinstance(p["hashes"], list) and len(p["hashes"]) <= 64 and all(is_hex(h, 64) for h in p["hashes"]), "hashes is not a list of at most 64 hashes of 64 hex"),
            (p["leaf_index"] == p["seq"] - 1 and p["leaf_index"] < p["tree_size"], "leaf_index must be seq - 1 and inside the tree"),
        ) if not ok), None)


def certificate_problem(c):
    problem = members(c, ("body", "signer_key", "signature"))
    if problem:
        return problem
    if not (is_hex(c["signer_key"], 64) and is_hex(c["signature"], 128)):
        return "signer_key is not 64 hex or signature is not 128 hex"
    b = c["body"]
    problem = members(b, ("schema", "session_id", "issued_at", "receipt_count", "first_receipt_at", "last_receipt_at", "anomalies",
                          "kernel_key", "ledger_binding") + CERTIFICATE_FLAGS)
    if problem:
        return f"body: {problem}"
    lb = b["ledger_binding"]
    problem = members(lb, ("first_seq", "last_seq", "session_head_entry_hash", "receipt_set_digest"))
    if problem:
        return f"body.ledger_binding: {problem}"
    return next((why for ok, why in (
        (b["schema"] == CERTIFICATE_SCHEMA, f"body.schema is not {CERTIFICATE_SCHEMA}"),
        (isinstance(b["session_id"], str) and b["session_id"] != "", "body.session_id is not a non-empty string"),
        (all(is_int(b[k], 0) for k in ("issued_at", "first_receipt_at", "last_receipt_at")), "a time is not an integer in 0..2^53-1"),
        (is_int(b["receipt_count"], 1), "body.receipt_count is not a positive integer"),
        (all(isinstance(b[k], bool) for k in CERTIFICATE_FLAGS), "a check flag is not a boolean"),
        (isinstance(b["anomalies"], list) and all(isinstance(a, str) for a in b["anomalies"]), "body.anomalies is not a list of strings"),
        (is_hex(b["kernel_key"], 64), "body.kernel_key is not 64 hex"),
        (is_int(lb["first_seq"], 1) and is_int(lb["last_seq"], 1), "ledger_binding first_seq or last_seq is not a positive integer"),
        (is_hex(lb["session_head_entry_hash"], 64) and is_hex(lb["receipt_set_digest"], 64), "a ledger_binding hash is not 64 hex"),
    ) if not ok), None)


# ---------------------------------------------------------------------------
# The parts: a receipt, an entry hash, a checkpoint under several trusted keys, a certificate's signer.
# ---------------------------------------------------------------------------


def verify_receipt(r, kernels):
    """(id or None, None) when the receipt verifies, else (None, "check: why") as verifyReceipt names it."""
    if not isinstance(r, dict) or not is_hex(r.get("id"), 64) or not is_hex(r.get("kernel_key"), 64) or not is_hex(r.get("signature"), 128):
        return None, "schema: not a receipt with id, kernel_key and signature"
    action = r.get("action")
    if not isinstance(action, dict) or "parameters" not in action or not isinstance(action.get("parameter_hash"), str):
        return None, "schema: action is not {parameters, parameter_hash}"
    try:
        rid = sha256_hex(jcs(without(r, "id", "signature", "algorithm")))
        signed = jcs(without(r, "signature", "algorithm"))
    except NotCanonical as e:
        return None, f"canonical: {e}"
    if rid != r["id"]:
        return None, f"id: the content hashes to {rid}, not {r['id']}"
    rule = SEMANTIC_RULES.get(r.get("receipt_kind"))
    if rule is None or (r.get("boundary_class"), r.get("trust_level")) != rule[:2] or ("decision" in r) != (rule[2] == "required"):
        return None, f"semantics: {r.get('receipt_kind')!r} with {r.get('boundary_class')!r}, {r.get('trust_level')!r}, decision {'present' if 'decision' in r else 'absent'}"
    if r["kernel_key"] not in kernels:
        return None, f"kernel_key: {r['kernel_key']} is not a trusted kernel key"
    if not verify(bytes.fromhex(r["kernel_key"]), signed.encode("utf-8"), bytes.fromhex(r["signature"])):
        return None, "signature: Ed25519 verify failed under kernel_key"
    if r.get("redaction_mode") == "none" and H(action["parameters"]) != action["parameter_hash"]:
        return None, "parameter_hash: not H(parameters)"
    return rid, None


def entry_hash(e):
    return sha256_hex(jcs({"schema": LEDGER_SCHEMA, "seq": e["seq"], "prev_hash": e["prev_hash"], "receipt_sha256": sha256_hex(e["body"]),
                           "session_id": e["session_id"], "session_prev_seq": e["session_prev_seq"]}))


def signature_line_keys(note, origin):
    """The key hashes (4 bytes) of the note's well-formed signature lines named `origin`."""
    split = note.rfind("\n\n")
    hashes = set()
    for line in note[split + 2:].split("\n") if split >= 0 else []:
        name, _, encoded = line[len(EM_DASH_SPACE):].partition(" ")
        raw = b64decode_strict(encoded) if line.startswith(EM_DASH_SPACE) else None
        if name == origin and raw is not None and len(raw) >= 5:
            hashes.add(raw[:4])
    return hashes


def open_checkpoint(note, kernels):
    """(True, (origin, size, root)) when a line by a trusted kernel key verifies and none fails; (False, why) otherwise.

    The key name is the note's origin (Chio's default). Lines by unknown keys are ignored (C2SP).
    """
    if not kernels:
        return False, "no trusted kernel key"
    if not all(isinstance(k, str) and is_hex(k.lower(), 64) for k in kernels):
        return False, "a trusted key is not an Ed25519 public key as 64 hex characters"
    origin = note.split("\n", 1)[0]
    keys = sorted(bytes.fromhex(k) for k in kernels)
    lined = [k for k in keys if key_hash(origin, k) in signature_line_keys(note, origin)]
    opened = None
    for k in lined or keys[:1]:  # with no trusted line, open_note names what is wrong (malformed, or no line)
        ok, reason, parsed = open_note(note, k, origin)
        if not ok:
            return False, reason
        opened = parsed
    return True, opened


def untrusted_signer(cert, kernels, authorities):
    """Why the certificate's signer is not trusted, or None (src/projections/certificate/verify.ts)."""
    if not kernels and not authorities:
        return "no trusted kernel or authority key"
    if cert["signer_key"] in authorities:
        return None
    if cert["signer_key"] not in kernels:
        return f"signer {cert['signer_key'][:16]}… is not a trusted kernel or authority key"
    if cert["signer_key"] != cert["body"]["kernel_key"]:
        return "signer is a trusted kernel key but not the session's kernel: a kernel signs its own sessions only"
    return None


# ---------------------------------------------------------------------------
# The bundle check: every check, in verify.ts order, as (check, seq, name, ok, detail). The first one
# with ok False is the verdict. Checks that depend on a failed one are skipped, the rest still run.
# ---------------------------------------------------------------------------


def bundle_checks(b, kernels, authorities):
    kernels, authorities = set(kernels), set(authorities)
    problem = members(b, ("schema", "session_id", "entries", "proofs", "checkpoint", "certificate"))
    yield "schema", None, "the bundle has exactly schema, session_id, entries, proofs, checkpoint, certificate", problem is None, problem
    if problem:
        return
    shapes = (
        ("schema = chio.evidence-bundle.v1", b["schema"] == BUNDLE_SCHEMA, repr(b["schema"])),
        ("session_id is a string of 1..256 characters", is_str(b["session_id"], 1, 256), repr(b["session_id"])),
        ("entries is a non-empty list of {seq, prev_hash, entry_hash, session_id, session_prev_seq, body}",
         isinstance(b["entries"], list) and len(b["entries"]) > 0 and all(entry_problem(e) is None for e in b["entries"]),
         next((f"entry {i}: {entry_problem(e)}" for i, e in enumerate(b["entries"]) if entry_problem(e)), "empty or not a list") if isinstance(b["entries"], list) else "not a list"),
        ("proofs is a list of chio.inclusion-proof.v1", isinstance(b["proofs"], list) and all(proof_problem(p) is None for p in b["proofs"]),
         next((f"proof {i}: {proof_problem(p)}" for i, p in enumerate(b["proofs"]) if proof_problem(p)), "") if isinstance(b["proofs"], list) else "not a list"),
        ("checkpoint is a string of 1 character to 128 KiB", is_str(b["checkpoint"], 1, 128 * 1024), ""),
        ("certificate is a chio.compliance.certificate.v1 {body, signer_key, signature}", certificate_problem(b["certificate"]) is None, certificate_problem(b["certificate"])),
    )
    for name, ok, detail in shapes:
        yield "schema", None, name, ok, detail
    if not all(ok for _, ok, _ in shapes):
        return

    ok, opened = open_checkpoint(b["checkpoint"], kernels)
    yield "checkpoint", None, "the checkpoint verifies under a trusted kernel key (key name = origin, key hash, Ed25519 over the note text)", ok, "" if ok else opened
    tree_size, root = (opened[1], opened[2]) if ok else (None, None)
    entries, proofs = b["entries"], b["proofs"]
    yield "inclusion", None, "one inclusion proof per entry", len(proofs) == len(entries), f"{len(entries)} entries, {len(proofs)} proofs"

    ids = []
    previous = None
    for i, e in enumerate(entries):
        seq = e["seq"]
        yield "entry", seq, f"seq {seq}: session_id = the bundle's session_id", e["session_id"] == b["session_id"], f"{e['session_id']!r}"
        yield ("session_chain", seq, f"seq {seq}: session_prev_seq of the first entry is null, of each later one the seq of the entry before",
               e["session_prev_seq"] == previous, f"links to {e['session_prev_seq']}, expected {previous}")
        yield "session_chain", seq, f"seq {seq}: seq follows the previous entry's", previous is None or seq > previous, f"after {previous}"
        try:
            receipt = parse_json(e["body"])
        except (ValueError, NotCanonical) as x:
            yield "receipt", seq, f"seq {seq}: body is JSON", False, str(x)
            receipt = None
        if receipt is not None:
            rid, why = verify_receipt(receipt, kernels)
            check_name = {"id": "id = H(receipt minus id, signature, algorithm)", "signature": "signature verifies under its trusted kernel_key",
                          "kernel_key": "kernel_key is a trusted kernel key"}.get((why or "").split(":")[0], "the receipt verifies")
            yield "receipt", seq, f"seq {seq}: {check_name}", rid is not None, why
            if rid is not None:
                ids.append(rid)
        try:
            recomputed = entry_hash(e)
        except NotCanonical as x:  # a lone surrogate in session_id: no RFC 8785 text, so no hash
            recomputed = f"none ({x})"
        yield ("entry_hash", seq, f"seq {seq}: entry_hash = sha256_hex(JCS({{schema, seq, prev_hash, receipt_sha256 = sha256_hex(body), session_id, session_prev_seq}}))",
               recomputed == e["entry_hash"], f"recomputed {recomputed}")
        if i < len(proofs):
            p = proofs[i]
            yield "inclusion", seq, f"seq {seq}: the proof is for this entry (seq, entry_hash)", (p["seq"], p["entry_hash"]) == (seq, e["entry_hash"]), f"proof for seq {p['seq']}"
            if tree_size is not None:
                yield "inclusion", seq, f"seq {seq}: the proof's tree_size is the checkpoint's", p["tree_size"] == tree_size, f"{p['tree_size']} != {tree_size}"
                yield ("inclusion", seq, f"seq {seq}: the proof leads to the checkpoint's root (RFC 9162 §2.1.3.2)",
                       verify_inclusion(leaf_hash(bytes.fromhex(e["entry_hash"])), p["leaf_index"], p["tree_size"], [bytes.fromhex(h) for h in p["hashes"]], root), "")
        previous = seq

    cert = b["certificate"]
    body = cert["body"]
    why = untrusted_signer(cert, kernels, authorities)
    yield "certificate", None, "the certificate's signer is trusted (an authority key, or the session's own kernel key)", why is None, why
    try:
        body_jcs = jcs(body).encode("utf-8")
    except NotCanonical:
        body_jcs = None
    yield ("certificate", None, "the certificate's signature verifies under signer_key over JCS(body)",
           body_jcs is not None and verify(bytes.fromhex(cert["signer_key"]), body_jcs, bytes.fromhex(cert["signature"])), "Ed25519 verify failed")
    failed = [k for k in CERTIFICATE_FLAGS if body[k] is not True] + body["anomalies"]
    yield "certificate", None, "the certificate records no failed check and no anomaly", not failed, f"{failed}"
    yield "certificate", None, "the certificate's kernel_key is a trusted kernel key", not kernels or body["kernel_key"] in kernels, body["kernel_key"]
    yield "certificate", None, "certificate session_id = the bundle's", body["session_id"] == b["session_id"], f"{body['session_id']!r}"
    yield "certificate", None, "certificate receipt_count = the number of entries", body["receipt_count"] == len(entries), f"{body['receipt_count']} != {len(entries)}"
    actual = {"first_seq": entries[0]["seq"], "last_seq": entries[-1]["seq"], "session_head_entry_hash": entries[-1]["entry_hash"],
              "receipt_set_digest": H(ids)}
    for k, v in actual.items():
        yield "certificate", None, f"certificate ledger_binding.{k} = the entries'", body["ledger_binding"][k] == v, f"{body['ledger_binding'][k]!r} != {v!r}"


def verdict(b, kernels, authorities):
    """None when the bundle verifies, else (check, seq, name, detail) of the first failure."""
    for check, seq, name, ok, detail in bundle_checks(b, kernels, authorities):
        if not ok:
            return check, seq, name, detail
    return None


# ---------------------------------------------------------------------------
# RFC 6902 JSON Patch (add, remove, replace) with RFC 6901 pointers, for the cases.
# ---------------------------------------------------------------------------


def apply_patch(doc, ops):
    out = copy.deepcopy(doc)
    for op in ops:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]] if op["path"].startswith("/") else None
        if not tokens:
            raise ValueError(f"not a JSON pointer to a member: {op['path']!r}")
        parent = out
        for t in tokens[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        last = tokens[-1]
        if isinstance(parent, list):
            i = int(last)
            if not 0 <= i <= len(parent) - (0 if op["op"] == "add" else 1):
                raise ValueError(f"{op['path']}: index out of range")
            if op["op"] == "add":
                parent.insert(i, copy.deepcopy(op["value"]))
            elif op["op"] == "remove":
                del parent[i]
            elif op["op"] == "replace":
                parent[i] = copy.deepcopy(op["value"])
            else:
                raise ValueError(f"unsupported op {op['op']!r}")
        else:
            if op["op"] != "add" and last not in parent:
                raise ValueError(f"{op['path']}: no member {last!r}")
            if op["op"] == "remove":
                del parent[last]
            elif op["op"] in ("add", "replace"):
                parent[last] = copy.deepcopy(op["value"])
            else:
                raise ValueError(f"unsupported op {op['op']!r}")
    return out


# ---------------------------------------------------------------------------
# The vector.
# ---------------------------------------------------------------------------

GROUPS = (
    ("schema", "evidence format (chio.evidence-bundle.v1 members and shapes)"),
    ("checkpoint", "evidence checkpoint (signed note under the kernel key)"),
    ("session", "evidence session chain (every entry of sess-A, each linking to the one before)"),
    ("receipt", "evidence receipts (id and signature under the kernel key)"),
    ("entry_hash", "evidence entry hashes (recomputed)"),
    ("inclusion", "evidence inclusion proofs (to the checkpoint's root)"),
    ("certificate", "evidence certificate (kernel-signed; session, count and ledger_binding)"),
)


def check_provenance(c, vec, shared, others):
    c.group("evidence provenance (the other vectors' entries, note and proofs; the certificate Chio makes)")
    seed = bytes.fromhex(vec["ed25519_seed_hex"])
    public = secret_to_public(seed).hex()
    c.equal("ed25519_seed_hex = the chio-v1 seed", vec["ed25519_seed_hex"], shared["ed25519_seed_hex"])
    c.equal("ed25519_public_key_hex = public key of the seed", vec["ed25519_public_key_hex"], public)
    c.equal("other_public_key_hex = public key of other_seed_hex", vec["other_public_key_hex"], secret_to_public(bytes.fromhex(vec["other_seed_hex"])).hex())
    c.equal("trusted_kernel_keys = [the public key]", vec["trusted_kernel_keys"], [public])
    b = vec["bundle"]
    c.equal("session_id = bundle.session_id = sess-A", (vec["session_id"], b["session_id"]), ("sess-A", "sess-A"))
    fields = ("seq", "prev_hash", "entry_hash", "session_id", "session_prev_seq", "body")
    sess = [{k: e[k] for k in fields} for e in shared["ledger"]["entries"] if e["session_id"] == "sess-A"]
    c.equal("bundle.entries = the sess-A entries of receipt/chio-v1.json (seq 1 and 3), fields as stored", b["entries"], sess)
    leaves = [leaf_hash(bytes.fromhex(e["entry_hash"])) for e in shared["ledger"]["entries"]]
    c.equal("checkpoint_root_hex = RFC 6962 root of the 3 ledger entry hashes", vec["checkpoint_root_hex"], mth(leaves).hex())
    if "checkpoint" in others:
        c.equal("bundle.checkpoint = checkpoint/chio-checkpoint-v1.json signed_note", b["checkpoint"], others["checkpoint"]["signed_note"])
    if "merkle" in others:
        want = [next(p for p in others["merkle"]["inclusion_proofs"] if (p["leaf_index"], p["tree_size"]) == (e["seq"] - 1, 3)) for e in sess]
        c.equal("bundle.proofs = merkle/chio-merkle-v1.json's proofs of these entries in the tree of 3", b["proofs"], want)
    receipts = shared["receipts"]
    ids = [receipts["allow"]["id"], receipts["trace_observation"]["id"]]
    c.equal("receipt_ids_in_session_order = ids of the allow and trace_observation receipts", vec["receipt_ids_in_session_order"], ids)
    c.equal("receipt_set_digest_input_jcs = JCS(ids)", vec["receipt_set_digest_input_jcs"], jcs(ids))
    c.equal("receipt_set_digest = sha256_hex(receipt_set_digest_input_jcs)", vec["receipt_set_digest"], sha256_hex(jcs(ids)))
    cert = b["certificate"]
    expected_body = {
        "schema": CERTIFICATE_SCHEMA, "session_id": "sess-A", "issued_at": cert["body"].get("issued_at"), "receipt_count": 2,
        "first_receipt_at": receipts["allow"]["receipt"]["timestamp"], "last_receipt_at": receipts["trace_observation"]["receipt"]["timestamp"],
        **{k: True for k in CERTIFICATE_FLAGS}, "anomalies": [], "kernel_key": public,
        "ledger_binding": {"first_seq": 1, "last_seq": 3, "session_head_entry_hash": shared["ledger"]["entries"][2]["entry_hash"], "receipt_set_digest": H(ids)},
    }
    c.equal("certificate body = what Chio makes for sess-A (count 2, seq 1..3, head = entry 3's hash, digest of the ids)", cert["body"], expected_body)
    if "certificate" in others:
        c.equal("certificate body = certificate/chio-certificate-v1.json's body (only the signer differs)", cert["body"], others["certificate"]["certificate"]["body"])
    c.equal("certificate_body_jcs = JCS(certificate.body)", vec["certificate_body_jcs"], jcs(cert["body"]))
    c.equal("certificate signer_key = the kernel key (kernel-signed)", cert["signer_key"], public)
    c.equal("certificate signature = Ed25519(seed, certificate_body_jcs) (deterministic)", cert["signature"], sign(seed, jcs(cert["body"]).encode("utf-8")).hex())


def check_bundle(c, vec):
    results = list(bundle_checks(vec["bundle"], vec["trusted_kernel_keys"], []))
    group_of = {"entry": "session", "session_chain": "session"}
    for key, title in GROUPS:
        c.group(title)
        for check, _seq, name, ok, detail in results:
            if group_of.get(check, check) == key:
                c.check(name, ok, "" if ok else str(detail))
    return results


def check_cases(c, vec):
    c.group("evidence cases (expected verdict and failing check)")
    for case in vec["cases"]:
        exp = case["expected"]
        label = "accept" if exp["verdict"] == "accept" else f"reject ({exp['check']}{'' if exp.get('seq') is None else ' at seq ' + str(exp['seq'])})"
        try:
            bundle = apply_patch(vec["bundle"], case["patch"])
        except (KeyError, IndexError, ValueError, TypeError) as e:
            c.check(f"{case['name']}: expected {label}", False, f"the patch does not apply: {e}")
            continue
        v = verdict(bundle, case["trusted_kernel_keys"], case["trusted_authority_keys"])
        got = "accept" if v is None else f"reject ({v[0]}{'' if v[1] is None else ' at seq ' + str(v[1])}): {v[2]}: {v[3]}"
        ok = v is None if exp["verdict"] == "accept" else (v is not None and (v[0], v[1]) == (exp["check"], exp.get("seq")))
        c.check(f"{case['name']}: expected {label}", ok, f"got {got}")


def main(argv):
    base = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    def load(rel):
        with open(os.path.join(base, rel), encoding="utf-8") as f:
            return parse_json(f.read())
    try:
        shared, vec = load("receipt/chio-v1.json"), load("evidence/chio-evidence-v1.json")
        others = {name: load(rel) for name, rel in (("checkpoint", "checkpoint/chio-checkpoint-v1.json"), ("merkle", "merkle/chio-merkle-v1.json"),
                                                   ("certificate", "certificate/chio-certificate-v1.json")) if os.path.exists(os.path.join(base, rel))}
    except (OSError, ValueError, NotCanonical) as e:
        print(f"cannot read the vectors under {base}: {e}")
        print("0 passed, 1 failed")
        return 1
    c = Checker()
    c.group("evidence provenance")
    c.run("provenance checks", lambda: check_provenance(c, vec, shared, others))
    c.group("evidence bundle")
    c.run("bundle checks", lambda: check_bundle(c, vec))
    c.group("evidence cases")
    c.run("case checks", lambda: check_cases(c, vec))
    return c.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
