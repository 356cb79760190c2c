-- Schema 7: the Merkle tree over the ledger (stored complete subtrees, levels >= 1) and signed
-- checkpoints (DESIGN §10). The subtrees of entries appended before schema 7 are computed when the
-- migration runs (src/ledger/migrate.ts calls src/ledger/tree.ts: SQL has no SHA-256).

CREATE TABLE `ledger_checkpoints` (
	`tree_size` integer PRIMARY KEY NOT NULL,
	`root_hash` text NOT NULL,
	`origin` text NOT NULL,
	`signer_key` text NOT NULL,
	`note` text NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "ledger_checkpoints_shape" CHECK("ledger_checkpoints"."tree_size" >= 1 AND length("ledger_checkpoints"."root_hash") = 64 AND length("ledger_checkpoints"."signer_key") = 64)
);
--> statement-breakpoint
CREATE TABLE `merkle_subtrees` (
	`level` integer NOT NULL,
	`idx` integer NOT NULL,
	`hash` blob NOT NULL,
	PRIMARY KEY(`level`, `idx`),
	CONSTRAINT "merkle_subtrees_shape" CHECK("merkle_subtrees"."level" >= 1 AND "merkle_subtrees"."idx" >= 0 AND length("merkle_subtrees"."hash") = 32)
);
--> statement-breakpoint
-- Checkpoints are append-only like the entries: a signed checkpoint is evidence, never rewritten.
-- Someone who can write the file can drop these triggers, which is why copies of the notes are
-- kept outside it (anchor files) and verified against the entries.
CREATE TRIGGER `ledger_checkpoints_no_update` BEFORE UPDATE ON `ledger_checkpoints`
BEGIN
  SELECT RAISE(ABORT, 'chio: ledger_checkpoints is append-only (UPDATE refused)');
END;
--> statement-breakpoint
CREATE TRIGGER `ledger_checkpoints_no_delete` BEFORE DELETE ON `ledger_checkpoints`
BEGIN
  SELECT RAISE(ABORT, 'chio: ledger_checkpoints is append-only (DELETE refused)');
END;
--> statement-breakpoint
-- A checkpoint only ever grows the tree: each is larger than every one stored before it.
CREATE TRIGGER `ledger_checkpoints_grow` BEFORE INSERT ON `ledger_checkpoints`
BEGIN
  SELECT RAISE(ABORT, 'chio: a checkpoint must cover more entries than the latest one')
    WHERE NEW.tree_size <= (SELECT coalesce(max(tree_size), 0) FROM ledger_checkpoints);
  SELECT RAISE(ABORT, 'chio: a checkpoint cannot cover entries the ledger does not hold')
    WHERE NEW.tree_size > (SELECT coalesce(max(seq), 0) FROM ledger_entries);
END;
