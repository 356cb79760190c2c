ALTER TABLE `pending_calls` ADD `session_id` text;--> statement-breakpoint
ALTER TABLE `pending_calls` ADD `tool_server` text;--> statement-breakpoint
ALTER TABLE `pending_calls` ADD `tool_name` text;--> statement-breakpoint
ALTER TABLE `pending_calls` ADD `facts` text;