CREATE TABLE "chio_ledger_meta" (
	"id" integer PRIMARY KEY NOT NULL,
	"application" text NOT NULL,
	"schema_version" integer NOT NULL,
	CONSTRAINT "chio_ledger_meta_one_row" CHECK ("chio_ledger_meta"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "grant_usage" (
	"capability_id" text NOT NULL,
	"grant_index" integer NOT NULL,
	"kernel_key" text NOT NULL,
	"invocations" bigint NOT NULL,
	CONSTRAINT "grant_usage_capability_id_grant_index_kernel_key_pk" PRIMARY KEY("capability_id","grant_index","kernel_key")
);
--> statement-breakpoint
CREATE TABLE "ledger_checkpoints" (
	"tree_size" bigint PRIMARY KEY NOT NULL,
	"root_hash" text NOT NULL,
	"origin" text NOT NULL,
	"signer_key" text NOT NULL,
	"note" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "ledger_checkpoints_shape" CHECK ("ledger_checkpoints"."tree_size" >= 1 AND length("ledger_checkpoints"."root_hash") = 64 AND length("ledger_checkpoints"."signer_key") = 64)
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"receipt_id" text NOT NULL,
	"session_id" text,
	"session_prev_seq" bigint,
	"prev_hash" text NOT NULL,
	"entry_hash" text NOT NULL,
	"body" text NOT NULL,
	"timestamp" bigint NOT NULL,
	"capability_id" text NOT NULL,
	"tool_server" text NOT NULL,
	"tool_name" text NOT NULL,
	"verdict" text,
	"receipt_kind" text NOT NULL,
	"trust_level" text NOT NULL,
	"kernel_key" text NOT NULL,
	"tenant_id" text,
	"producer" text NOT NULL,
	CONSTRAINT "ledger_entries_receipt_id_unique" UNIQUE("receipt_id"),
	CONSTRAINT "ledger_entries_seq_positive" CHECK ("ledger_entries"."seq" >= 1),
	CONSTRAINT "ledger_entries_hashes_hex" CHECK (length("ledger_entries"."prev_hash") = 64 AND length("ledger_entries"."entry_hash") = 64),
	CONSTRAINT "ledger_entries_session_link" CHECK ("ledger_entries"."session_prev_seq" IS NULL OR ("ledger_entries"."session_id" IS NOT NULL AND "ledger_entries"."session_prev_seq" < "ledger_entries"."seq"))
);
--> statement-breakpoint
CREATE TABLE "ledger_sessions" (
	"session_id" text PRIMARY KEY NOT NULL,
	"first_seq" bigint NOT NULL,
	"last_seq" bigint NOT NULL,
	"entry_count" bigint NOT NULL,
	"first_timestamp" bigint NOT NULL,
	"last_timestamp" bigint NOT NULL,
	"head_entry_hash" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merkle_subtrees" (
	"level" integer NOT NULL,
	"idx" bigint NOT NULL,
	"hash" "bytea" NOT NULL,
	CONSTRAINT "merkle_subtrees_level_idx_pk" PRIMARY KEY("level","idx"),
	CONSTRAINT "merkle_subtrees_shape" CHECK ("merkle_subtrees"."level" >= 1 AND "merkle_subtrees"."idx" >= 0 AND length("merkle_subtrees"."hash") = 32)
);
--> statement-breakpoint
CREATE TABLE "pending_calls" (
	"request_id" text PRIMARY KEY NOT NULL,
	"capability_id" text NOT NULL,
	"grant_index" integer NOT NULL,
	"reserved_at" bigint NOT NULL,
	"owner" text NOT NULL,
	"session_id" text,
	"tool_server" text,
	"tool_name" text,
	"facts" text,
	"budget_keys" text
);
--> statement-breakpoint
CREATE TABLE "revoked_capabilities" (
	"capability_id" text NOT NULL,
	"kernel_key" text NOT NULL,
	"seq" bigint NOT NULL,
	"revoked_at" bigint NOT NULL,
	CONSTRAINT "revoked_capabilities_capability_id_kernel_key_pk" PRIMARY KEY("capability_id","kernel_key")
);
--> statement-breakpoint
CREATE INDEX "ledger_entries_session_seq" ON "ledger_entries" USING btree ("session_id","seq");--> statement-breakpoint
CREATE INDEX "ledger_entries_timestamp_verdict" ON "ledger_entries" USING btree ("timestamp","verdict");--> statement-breakpoint
CREATE INDEX "ledger_entries_tool" ON "ledger_entries" USING btree ("tool_server","tool_name");--> statement-breakpoint
CREATE INDEX "ledger_entries_capability" ON "ledger_entries" USING btree ("capability_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_verdict_not_allow" ON "ledger_entries" USING btree ("verdict") WHERE verdict = 'deny' OR verdict = 'cancelled' OR verdict = 'incomplete';