/** Real files for the ACP proxy tests: a project root with a file, a `_evil` sibling, an outside tree, and links out of the root. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function projectTree(dir: string): { root: string; outside: string } {
  const root = join(dir, 'project');
  const outside = join(dir, 'outside');
  for (const d of [root, outside, `${root}_evil`]) mkdirSync(d);
  writeFileSync(join(root, 'a.txt'), 'hello from a');
  writeFileSync(join(outside, 'secret.txt'), 'outside secret');
  writeFileSync(join(`${root}_evil`, 'secret.txt'), 'evil secret');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out'));
  symlinkSync(outside, join(root, 'dir-out'));
  return { root, outside };
}

/** The eleven camelCase keys of a receipt's `metadata.acp`, sorted. */
export const ACP_METADATA_KEYS = [
  'authorizationCorrelationId',
  'authorizationOperation',
  'authorizationParameterHash',
  'authorizationReceiptId',
  'authorizationRequestId',
  'authorizationResource',
  'authorizationToolCallId',
  'capabilityId',
  'enforcementMode',
  'sessionId',
  'toolCallId',
];

/** A step outcome the fixture agent reports for a request the proxy refused. */
export const denied = (message: string) => ({ ok: false, code: -32000, message });
