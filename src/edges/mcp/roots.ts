/**
 * The MCP roots a client declares (MCP 2025-11-25 client/roots): when the client has the `roots`
 * capability, the edge asks `roots/list` once the session is initialized and again on
 * `notifications/roots/list_changed`, and keeps the `file://` roots as directories. The kernel
 * judges every relative path argument against each of them (as well as the upstream's own
 * directories), because a filesystem server may resolve a relative path against any root.
 * Until an answer arrives the session has no roots of its own: relative paths are then judged only
 * against the other bases (or denied when there are none).
 * Owns: the roots request and the parsed list. Imports zod and node:url. The answer is attacker-controlled.
 */
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const ListRootsResultSchema = z
  .object({
    roots: z.array(z.object({ uri: z.string().max(4096), name: z.string().optional() }).passthrough()).max(256),
  })
  .passthrough();

export const ROOTS_REQUEST_PREFIX = 'chio-roots-';

export class ClientRoots {
  private directories: readonly string[] = [];
  private pending: string | undefined;
  private sequence = 0;

  /** The directories of the last answer (absolute paths, `file://` roots only). */
  get paths(): readonly string[] {
    return this.directories;
  }

  /** A `roots/list` request to send to the client; its answer goes to `accept`. */
  request(): { jsonrpc: '2.0'; id: string; method: 'roots/list' } {
    this.pending = `${ROOTS_REQUEST_PREFIX}${++this.sequence}`;
    return { jsonrpc: '2.0', id: this.pending, method: 'roots/list' };
  }

  /** Takes a response if it answers the latest roots request; returns whether it did. */
  accept(response: { id: unknown; result?: unknown; error?: unknown }): boolean {
    if (response.id !== this.pending || this.pending === undefined) return false;
    this.pending = undefined;
    const parsed = ListRootsResultSchema.safeParse(response.result);
    if (response.error !== undefined || !parsed.success) {
      this.directories = [];
      return true;
    }
    this.directories = [
      ...new Set(
        parsed.data.roots.flatMap((r) => {
          if (!r.uri.startsWith('file://')) return [];
          try {
            const path = fileURLToPath(r.uri);
            return posix.isAbsolute(path) ? [posix.normalize(path)] : [];
          } catch {
            return [];
          }
        }),
      ),
    ];
    return true;
  }
}
