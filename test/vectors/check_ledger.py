#!/usr/bin/env python3
"""Standalone checker for a Chio ledger file (Python 3.11, standard library only).

Usage: python3 check_ledger.py LEDGER.sqlite KERNEL_KEY_HEX [KERNEL_KEY_HEX ...]

Walks ledger_entries in seq order (DESIGN section 6) with this folder's independent
implementations of RFC 8785, SHA-256 and Ed25519 (check_vectors.py, check_evidence.py): seq with
no gap from 1, prev_hash, entry_hash recomputed from the entry, the body as a receipt in its exact
RFC 8785 form whose id, semantics, parameter hash and signature verify under one of the given
kernel keys, receipt_id, and each session's own chain (session_prev_seq). A ledger held elsewhere
(PostgreSQL) is checked after `chio ledger copy` into an SQLite file.

Prints "OK: N entries, S sessions, head SEQ ENTRY_HASH" and exits 0, or "FAIL: seq N: why" and
exits 1 at the first bad entry.
"""

import sqlite3
import sys

from check_evidence import entry_hash, verify_receipt
from check_vectors import NotCanonical, jcs, parse_json

GENESIS = "0" * 64


def check(path, kernels):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("SELECT seq, receipt_id, session_id, session_prev_seq, prev_hash, entry_hash, body FROM ledger_entries ORDER BY seq")
    expected, prev, sessions, n = 1, GENESIS, {}, 0
    for seq, receipt_id, session_id, session_prev_seq, prev_hash, stored_hash, body in rows:
        e = {"seq": seq, "prev_hash": prev_hash, "body": body.encode("utf-8"), "session_id": session_id, "session_prev_seq": session_prev_seq}
        if seq != expected:
            return f"FAIL: seq {expected}: gap (next entry is seq {seq})"
        if prev_hash != prev:
            return f"FAIL: seq {seq}: prev_hash is not the entry_hash of seq {seq - 1}"
        if entry_hash(e) != stored_hash:
            return f"FAIL: seq {seq}: entry_hash does not match the entry"
        try:
            receipt = parse_json(body)
            canonical = jcs(receipt)
        except (ValueError, NotCanonical) as err:
            return f"FAIL: seq {seq}: body: {err}"
        if canonical != body:
            return f"FAIL: seq {seq}: body is not in its exact RFC 8785 form"
        rid, why = verify_receipt(receipt, kernels)
        if why is not None:
            return f"FAIL: seq {seq}: {why}"
        if rid != receipt_id:
            return f"FAIL: seq {seq}: receipt_id column is not the receipt's id"
        if session_id is not None:
            if session_prev_seq != sessions.get(session_id):
                return f"FAIL: seq {seq}: session_prev_seq is not the previous entry of its session"
            sessions[session_id] = seq
        elif session_prev_seq is not None:
            return f"FAIL: seq {seq}: session_prev_seq set without a session"
        prev, expected, n = stored_hash, expected + 1, n + 1
    return f"OK: {n} entries, {len(sessions)} sessions, head {n} {prev}"


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    line = check(argv[1], set(argv[2:]))
    print(line)
    return 0 if line.startswith("OK:") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
