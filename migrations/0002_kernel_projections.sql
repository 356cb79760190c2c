CREATE TABLE `grant_usage` (
	`capability_id` text NOT NULL,
	`grant_index` integer NOT NULL,
	`invocations` integer NOT NULL,
	PRIMARY KEY(`capability_id`, `grant_index`)
);
--> statement-breakpoint
CREATE TABLE `pending_calls` (
	`request_id` text PRIMARY KEY NOT NULL,
	`capability_id` text NOT NULL,
	`grant_index` integer NOT NULL,
	`reserved_at` integer NOT NULL,
	`owner` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `revoked_capabilities` (
	`capability_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`revoked_at` integer NOT NULL
);
