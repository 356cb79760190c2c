CREATE TABLE "chio_append_lock" (
	"id" integer PRIMARY KEY NOT NULL,
	CONSTRAINT "chio_append_lock_one_row" CHECK ("chio_append_lock"."id" = 1)
);
--> statement-breakpoint
-- The lock row itself (appenders take it FOR UPDATE; see src/ledger/pg/schema.ts).
INSERT INTO "chio_append_lock" ("id") VALUES (1);
