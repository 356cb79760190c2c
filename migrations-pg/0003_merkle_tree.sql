-- Schema 4: merkle_subtrees is kept by every append (src/ledger/pg/tree.ts), as on SQLite, so
-- checkpoints and proofs cost O(log n) rows. The subtrees of entries appended before this version
-- are re-derived by the migration code (src/ledger/pg/migrate.ts) in the same transaction.
SELECT 1;
