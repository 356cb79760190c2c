/**
 * mcp-tool: for calls that are none of file, patch, shell or network (plain MCP tools): the block
 * list wins, then the allow list (when not empty), then `default_action`; and the arguments may
 * not exceed `max_args_size` bytes of canonical JSON. Defaults after upstream (chio-guards mcp_tool.rs).
 * Owns: the tool lists. Imports guard helpers and the canonicalizer.
 */
import { z } from 'zod';
import { canonicalBytes } from '../../crypto/index.js';
import type { Guard, GuardInput, GuardOutcome } from './types.js';

export const DEFAULT_BLOCKED_TOOLS = ['shell_exec', 'run_command', 'raw_file_write', 'raw_file_delete'];

export const McpToolConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  block: z.array(z.string().min(1)).default(DEFAULT_BLOCKED_TOOLS),
  allow: z.array(z.string().min(1)).default([]),
  default_action: z.enum(['allow', 'deny']).default('allow'),
  max_args_size: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
});
export type McpToolConfig = z.infer<typeof McpToolConfigSchema>;

export class McpToolGuard implements Guard {
  readonly name = 'mcp-tool';

  constructor(private readonly config: McpToolConfig = McpToolConfigSchema.parse({})) {}

  evaluate(input: GuardInput): GuardOutcome {
    if (!this.config.enabled || input.action.kind !== 'mcp_tool') return null;
    const tool = input.toolName;
    if (this.config.block.includes(tool)) return { verdict: 'deny', reason: `tool ${tool} is blocked`, details: tool };
    const size = canonicalBytes(input.arguments ?? {}).length;
    if (size > this.config.max_args_size)
      return {
        verdict: 'deny',
        reason: `arguments are ${size} bytes, more than ${this.config.max_args_size}`,
        details: String(size),
      };
    if (this.config.allow.length > 0) {
      return this.config.allow.includes(tool)
        ? { verdict: 'allow' }
        : { verdict: 'deny', reason: `tool ${tool} is not on the allow list`, details: tool };
    }
    return this.config.default_action === 'allow'
      ? { verdict: 'allow' }
      : { verdict: 'deny', reason: `tool ${tool} is denied by default`, details: tool };
  }
}
