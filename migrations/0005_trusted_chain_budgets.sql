-- Custom migration (schema 6): projections kept per signing key, and budgets counted along the
-- delegation chain. A kernel counts grant usage and revocations only from receipts signed by keys
-- it trusts, so both projections gain kernel_key in their key; allowed receipts of delegated
-- capabilities also count against the ancestor grants they narrow (metadata.chio_ancestor_grants);
-- a reservation records every grant it holds (pending_calls.budget_keys, JSON). The projections
-- are re-derived here with the same rules as src/ledger/sessions.ts. A merged migration is never edited.
DROP TABLE `grant_usage`;
--> statement-breakpoint
CREATE TABLE `grant_usage` (
	`capability_id` text NOT NULL,
	`grant_index` integer NOT NULL,
	`kernel_key` text NOT NULL,
	`invocations` integer NOT NULL,
	PRIMARY KEY(`capability_id`, `grant_index`, `kernel_key`)
);
--> statement-breakpoint
DROP TABLE `revoked_capabilities`;
--> statement-breakpoint
CREATE TABLE `revoked_capabilities` (
	`capability_id` text NOT NULL,
	`kernel_key` text NOT NULL,
	`seq` integer NOT NULL,
	`revoked_at` integer NOT NULL,
	PRIMARY KEY(`capability_id`, `kernel_key`)
);
--> statement-breakpoint
ALTER TABLE `pending_calls` ADD `budget_keys` text;
--> statement-breakpoint
INSERT INTO revoked_capabilities (capability_id, kernel_key, seq, revoked_at)
  SELECT e.body ->> '$.action.parameters.capability_id', e.kernel_key, e.seq, e.timestamp FROM ledger_entries e
  WHERE e.kind = 'revocation' AND e.seq = (SELECT min(f.seq) FROM ledger_entries f WHERE f.kind = 'revocation'
    AND f.kernel_key = e.kernel_key AND f.body ->> '$.action.parameters.capability_id' = e.body ->> '$.action.parameters.capability_id');
--> statement-breakpoint
INSERT INTO grant_usage (capability_id, grant_index, kernel_key, invocations)
  SELECT capability_id, body ->> '$.metadata.chio_grant_index', kernel_key, count(*) FROM ledger_entries
  WHERE kind = 'receipt' AND verdict = 'allow' AND receipt_kind = 'mediated_decision'
    AND json_type(body, '$.metadata.chio_grant_index') = 'integer' AND (body ->> '$.metadata.chio_grant_index') >= 0
  GROUP BY capability_id, body ->> '$.metadata.chio_grant_index', kernel_key;
