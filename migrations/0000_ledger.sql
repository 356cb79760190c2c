CREATE TABLE `ledger_entries` (
	`seq` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`receipt_id` text NOT NULL,
	`session_id` text,
	`session_prev_seq` integer,
	`prev_hash` text NOT NULL,
	`entry_hash` text NOT NULL,
	`body` text NOT NULL,
	`timestamp` integer NOT NULL,
	`capability_id` text NOT NULL,
	`tool_server` text NOT NULL,
	`tool_name` text NOT NULL,
	`verdict` text,
	`receipt_kind` text NOT NULL,
	`trust_level` text NOT NULL,
	`kernel_key` text NOT NULL,
	`tenant_id` text,
	`producer` text NOT NULL,
	CONSTRAINT "ledger_entries_seq_positive" CHECK("ledger_entries"."seq" >= 1),
	CONSTRAINT "ledger_entries_hashes_hex" CHECK(length("ledger_entries"."prev_hash") = 64 AND length("ledger_entries"."entry_hash") = 64),
	CONSTRAINT "ledger_entries_session_link" CHECK("ledger_entries"."session_prev_seq" IS NULL OR ("ledger_entries"."session_id" IS NOT NULL AND "ledger_entries"."session_prev_seq" < "ledger_entries"."seq"))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_entries_receipt_id_unique` ON `ledger_entries` (`receipt_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_session_seq` ON `ledger_entries` (`session_id`,`seq`);--> statement-breakpoint
CREATE INDEX `ledger_entries_timestamp` ON `ledger_entries` (`timestamp`);--> statement-breakpoint
CREATE INDEX `ledger_entries_tool` ON `ledger_entries` (`tool_server`,`tool_name`);--> statement-breakpoint
CREATE INDEX `ledger_entries_capability` ON `ledger_entries` (`capability_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_verdict` ON `ledger_entries` (`verdict`);--> statement-breakpoint
CREATE TABLE `ledger_sessions` (
	`session_id` text PRIMARY KEY NOT NULL,
	`first_seq` integer NOT NULL,
	`last_seq` integer NOT NULL,
	`entry_count` integer NOT NULL,
	`first_timestamp` integer NOT NULL,
	`last_timestamp` integer NOT NULL,
	`head_entry_hash` text NOT NULL
);
