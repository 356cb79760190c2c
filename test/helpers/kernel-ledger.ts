/**
 * A ledger the real kernel writes, for tests of what reads or copies ledgers: `calls` governed
 * calls in three sessions (every fourth one a forbidden-path denial, the rest allows that count
 * against the grant), then the capability's revocation. Kernel seed 7s, agent seed 8s; the clock
 * starts at `start` and moves 7 s per call. Returns the capability's id.
 */
import { signerFromSeed } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { CountingToolServer } from './tool-server.js';

export async function kernelLedger(path: string, calls: number, start = 1_790_000_000): Promise<string> {
  let clock = start;
  const kernel = Kernel.open({
    ledgerPath: path,
    seed: new Uint8Array(32).fill(7),
    clock: () => clock,
    checkpoints: false,
  });
  kernel.registerToolServer(new CountingToolServer());
  const agent = signerFromSeed(new Uint8Array(32).fill(8));
  const capability = kernel.issueCapability({ subject: agent.publicKeyHex, ttlSeconds: 10 ** 7 });
  for (let i = 0; i < calls; i++) {
    clock += 7;
    const [tool, args] = i % 4 === 0 ? ['read_file', { path: '/srv/app/.env' }] : ['hello_tool', { name: `n${i}` }];
    await kernel.evaluateToolCall({
      capability,
      caller: agent.publicKeyHex,
      serverId: 'fs',
      toolName: tool,
      arguments: args,
      sessionId: `s-${i % 3}`,
    });
  }
  await kernel.revokeCapability(capability.id, 'test');
  await kernel.close();
  return capability.id;
}
