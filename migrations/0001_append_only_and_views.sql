-- Custom migration (drizzle-kit generate --custom): what the schema DSL cannot express.
-- A merged migration is never edited; a change is a new migration.
--
-- 1. Append-only: ledger_entries rows are never updated or deleted. Triggers stop accidents and
--    other writers (a sqlite3 shell, another program); they do not stop someone who can drop
--    them. Tamper evidence comes from the hash chain and the signatures (chio ledger verify).
CREATE TRIGGER `ledger_entries_no_update` BEFORE UPDATE ON `ledger_entries`
BEGIN
  SELECT RAISE(ABORT, 'chio: ledger_entries is append-only (UPDATE refused)');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_entries_no_delete` BEFORE DELETE ON `ledger_entries`
BEGIN
  SELECT RAISE(ABORT, 'chio: ledger_entries is append-only (DELETE refused)');
END;
--> statement-breakpoint
-- 2. Links: an insert must continue the chain exactly (DESIGN §6): seq = head + 1, prev_hash =
--    entry_hash of seq - 1 (64 zeros for seq 1), session_prev_seq = the session's last seq.
--    The writer computes these itself; this trigger makes any other writer obey the same rule.
CREATE TRIGGER `ledger_entries_links` BEFORE INSERT ON `ledger_entries`
BEGIN
  SELECT RAISE(ABORT, 'chio: seq must be the head seq + 1')
    WHERE NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM ledger_entries);
  SELECT RAISE(ABORT, 'chio: prev_hash must be the entry_hash of seq - 1')
    WHERE NEW.prev_hash IS NOT coalesce(
      (SELECT entry_hash FROM ledger_entries WHERE seq = NEW.seq - 1),
      '0000000000000000000000000000000000000000000000000000000000000000');
  SELECT RAISE(ABORT, 'chio: session_prev_seq must be the session''s last seq')
    WHERE NEW.session_prev_seq IS NOT (SELECT max(seq) FROM ledger_entries WHERE session_id = NEW.session_id);
END;
--> statement-breakpoint
-- 3. Auditor views. `receipts`: one row per receipt with the decoded members an auditor asks
--    about. JSON members (parameters, evidence, metadata) are JSON text (the -> operator).
CREATE VIEW `receipts` AS
SELECT
  e.seq,
  e.receipt_id,
  e.timestamp,
  datetime(e.timestamp, 'unixepoch') AS time_utc,
  e.session_id,
  e.session_prev_seq,
  e.capability_id,
  e.tool_server,
  e.tool_name,
  e.receipt_kind,
  e.verdict,
  e.body ->> '$.decision.reason' AS reason,
  e.body ->> '$.decision.guard' AS guard,
  e.trust_level,
  e.body ->> '$.boundary_class' AS boundary_class,
  e.body ->> '$.tool_origin' AS tool_origin,
  e.body ->> '$.redaction_mode' AS redaction_mode,
  e.body -> '$.action.parameters' AS parameters,
  e.body ->> '$.action.parameter_hash' AS parameter_hash,
  e.body ->> '$.content_hash' AS content_hash,
  e.body ->> '$.policy_hash' AS policy_hash,
  e.body -> '$.evidence' AS evidence,
  e.body -> '$.metadata' AS metadata,
  e.tenant_id,
  e.kernel_key,
  e.producer,
  e.entry_hash,
  e.body
FROM ledger_entries e
WHERE e.kind = 'receipt';
--> statement-breakpoint
-- `receipt_evidence`: one row per guard that ran on a receipt (its evidence entries).
CREATE VIEW `receipt_evidence` AS
SELECT
  e.seq,
  e.receipt_id,
  e.timestamp,
  e.session_id,
  e.tool_server,
  e.tool_name,
  e.verdict AS receipt_verdict,
  CAST(g.key AS INTEGER) AS position,
  g.value ->> '$.guard_name' AS guard_name,
  g.value ->> '$.verdict' AS passed,
  g.value ->> '$.details' AS details
FROM ledger_entries e, json_each(e.body, '$.evidence') g
WHERE e.kind = 'receipt';
--> statement-breakpoint
-- `session_summary`: per session, counts by verdict and the time span (computed from the entries,
-- not from the ledger_sessions projection).
CREATE VIEW `session_summary` AS
SELECT
  session_id,
  count(*) AS entries,
  sum(verdict = 'allow') AS allowed,
  sum(verdict = 'deny') AS denied,
  sum(verdict IS NULL) AS observations,
  min(seq) AS first_seq,
  max(seq) AS last_seq,
  datetime(min(timestamp), 'unixepoch') AS first_time_utc,
  datetime(max(timestamp), 'unixepoch') AS last_time_utc
FROM ledger_entries
WHERE session_id IS NOT NULL
GROUP BY session_id;
