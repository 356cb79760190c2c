-- Custom migration: the auditor view of revocations (entries of kind 'revocation': receipts the
-- kernel signed for its own chio-kernel/revoke_capability action). A merged migration is never edited.
CREATE VIEW `revocations` AS
SELECT
  e.seq,
  e.receipt_id,
  e.timestamp,
  datetime(e.timestamp, 'unixepoch') AS time_utc,
  e.body ->> '$.action.parameters.capability_id' AS revoked_capability_id,
  e.body ->> '$.action.parameters.reason' AS reason,
  e.kernel_key,
  e.producer,
  e.entry_hash
FROM ledger_entries e
WHERE e.kind = 'revocation';
