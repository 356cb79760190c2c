-- Custom migration (drizzle-kit generate --config drizzle-pg.config.ts --custom): what the schema
-- DSL cannot express, the PostgreSQL twin of the SQLite ledger's triggers and views. A merged
-- migration is never edited; a change is a new migration.
--
-- 1. Append-only: ledger_entries and ledger_checkpoints rows are never updated or deleted, and
--    the tables are never truncated. Triggers stop accidents and other writers; they do not stop
--    a superuser who drops them. Tamper evidence comes from the hash chain and the signatures.
CREATE FUNCTION chio_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'chio: % is append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION chio_append_only();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION chio_append_only();
--> statement-breakpoint
CREATE TRIGGER ledger_checkpoints_no_update BEFORE UPDATE OR DELETE ON ledger_checkpoints FOR EACH ROW EXECUTE FUNCTION chio_append_only();
--> statement-breakpoint
CREATE TRIGGER ledger_checkpoints_no_truncate BEFORE TRUNCATE ON ledger_checkpoints FOR EACH STATEMENT EXECUTE FUNCTION chio_append_only();
--> statement-breakpoint
-- 2. Links: an insert must continue the chain exactly (DESIGN §6): seq = head + 1, prev_hash =
--    entry_hash of seq - 1 (64 zeros for seq 1), session_prev_seq = the session's last seq.
--    Appenders hold the ledger's advisory lock, so these reads see every earlier commit.
CREATE FUNCTION chio_entry_links() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  head bigint;
  previous text;
  session_last bigint;
BEGIN
  SELECT coalesce(max(seq), 0) INTO head FROM ledger_entries;
  IF NEW.seq IS DISTINCT FROM head + 1 THEN
    RAISE EXCEPTION 'chio: seq must be the head seq + 1' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  SELECT entry_hash INTO previous FROM ledger_entries WHERE seq = NEW.seq - 1;
  IF NEW.prev_hash IS DISTINCT FROM coalesce(previous, repeat('0', 64)) THEN
    RAISE EXCEPTION 'chio: prev_hash must be the entry_hash of seq - 1' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  SELECT max(seq) INTO session_last FROM ledger_entries WHERE session_id = NEW.session_id;
  IF NEW.session_prev_seq IS DISTINCT FROM session_last THEN
    RAISE EXCEPTION 'chio: session_prev_seq must be the session''s last seq' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_links BEFORE INSERT ON ledger_entries FOR EACH ROW EXECUTE FUNCTION chio_entry_links();
--> statement-breakpoint
CREATE FUNCTION chio_checkpoint_grows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.tree_size <= (SELECT coalesce(max(tree_size), 0) FROM ledger_checkpoints) THEN
    RAISE EXCEPTION 'chio: a checkpoint must cover more entries than the latest one' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF NEW.tree_size > (SELECT coalesce(max(seq), 0) FROM ledger_entries) THEN
    RAISE EXCEPTION 'chio: a checkpoint cannot cover entries the ledger does not hold' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_checkpoints_grow BEFORE INSERT ON ledger_checkpoints FOR EACH ROW EXECUTE FUNCTION chio_checkpoint_grows();
--> statement-breakpoint
-- 3. Auditor views, the same names and columns as on SQLite. JSON members (parameters, evidence,
--    metadata) are jsonb; times are 'YYYY-MM-DD HH:MM:SS' UTC text as SQLite's datetime() gives.
CREATE VIEW receipts AS
SELECT
  e.seq,
  e.receipt_id,
  e.timestamp,
  to_char(to_timestamp(e.timestamp) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS time_utc,
  e.session_id,
  e.session_prev_seq,
  e.capability_id,
  e.tool_server,
  e.tool_name,
  e.receipt_kind,
  e.verdict,
  e.body::jsonb #>> '{decision,reason}' AS reason,
  e.body::jsonb #>> '{decision,guard}' AS guard,
  e.trust_level,
  e.body::jsonb ->> 'boundary_class' AS boundary_class,
  e.body::jsonb ->> 'tool_origin' AS tool_origin,
  e.body::jsonb ->> 'redaction_mode' AS redaction_mode,
  e.body::jsonb #> '{action,parameters}' AS parameters,
  e.body::jsonb #>> '{action,parameter_hash}' AS parameter_hash,
  e.body::jsonb ->> 'content_hash' AS content_hash,
  e.body::jsonb ->> 'policy_hash' AS policy_hash,
  e.body::jsonb -> 'evidence' AS evidence,
  e.body::jsonb -> 'metadata' AS metadata,
  e.tenant_id,
  e.kernel_key,
  e.producer,
  e.entry_hash,
  e.body
FROM ledger_entries e
WHERE e.kind = 'receipt';
--> statement-breakpoint
CREATE VIEW receipt_evidence AS
SELECT
  e.seq,
  e.receipt_id,
  e.timestamp,
  e.session_id,
  e.tool_server,
  e.tool_name,
  e.verdict AS receipt_verdict,
  (g.n - 1)::integer AS position,
  g.value ->> 'guard_name' AS guard_name,
  g.value ->> 'verdict' AS passed,
  g.value ->> 'details' AS details
FROM ledger_entries e
CROSS JOIN LATERAL jsonb_array_elements(coalesce(e.body::jsonb -> 'evidence', '[]'::jsonb)) WITH ORDINALITY AS g(value, n)
WHERE e.kind = 'receipt';
--> statement-breakpoint
CREATE VIEW session_summary AS
SELECT
  session_id,
  count(*) AS entries,
  count(*) FILTER (WHERE verdict = 'allow') AS allowed,
  count(*) FILTER (WHERE verdict = 'deny') AS denied,
  count(*) FILTER (WHERE verdict IS NULL) AS observations,
  min(seq) AS first_seq,
  max(seq) AS last_seq,
  to_char(to_timestamp(min(timestamp)) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS first_time_utc,
  to_char(to_timestamp(max(timestamp)) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_time_utc
FROM ledger_entries
WHERE session_id IS NOT NULL
GROUP BY session_id;
--> statement-breakpoint
CREATE VIEW revocations AS
SELECT
  e.seq,
  e.receipt_id,
  e.timestamp,
  to_char(to_timestamp(e.timestamp) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS time_utc,
  e.body::jsonb #>> '{action,parameters,capability_id}' AS revoked_capability_id,
  e.body::jsonb #>> '{action,parameters,reason}' AS reason,
  e.kernel_key,
  e.producer,
  e.entry_hash
FROM ledger_entries e
WHERE e.kind = 'revocation';
