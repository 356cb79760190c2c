// Budgets along the delegation chain, through the kernel's public API: a call counts against the
// grant it used and every ancestor grant that grant narrows, so no tree of delegations — repeated
// grants, self-delegation, any depth or fan-out — gets more calls than the root allows.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { capabilitySigningText, delegateCapability } from '../../src/capability/index.js';
import type { CapabilityToken, Scope, ToolGrant } from '../../src/capability/index.js';
import { fromHex, signerFromSeed, toHex } from '../../src/crypto/index.js';
import type { Ed25519Signer } from '../../src/crypto/index.js';
import { Kernel } from '../../src/kernel/index.js';
import { openLedger, rebuildProjections, verifyChain } from '../../src/ledger/index.js';
import { tempDir } from '../helpers/tmp.js';
import { CountingToolServer } from '../helpers/tool-server.js';

const SEED = fromHex('5a'.repeat(32));
const holders = ['61', '62', '63'].map((b) => signerFromSeed(fromHex(b.repeat(32))));
const [alice, bob] = holders as [Ed25519Signer, Ed25519Signer, Ed25519Signer];
const dir = tempDir();
let n = 0;
const opened: Kernel[] = [];
afterEach(async () => {
  for (const k of opened.splice(0)) await k.close();
});

function kernelAt(): { kernel: Kernel; server: CountingToolServer; path: string } {
  const path = join(dir, `b-${++n}.sqlite`);
  const kernel = Kernel.open({ ledgerPath: path, seed: SEED });
  const server = new CountingToolServer();
  kernel.registerToolServer(server);
  opened.push(kernel);
  return { kernel, server, path };
}

const ARGS: Record<string, unknown> = { read_file: { path: '/workspace/a' }, hello_tool: { name: 'x' } };
async function use(
  kernel: Kernel,
  token: CapabilityToken,
  holder: Ed25519Signer,
  tool = 'read_file',
): Promise<boolean> {
  const r = await kernel.evaluateToolCall({
    capability: token,
    caller: holder.publicKeyHex,
    serverId: 'fs',
    toolName: tool,
    arguments: ARGS[tool],
  });
  return r.ok;
}
async function countAllowed(
  kernel: Kernel,
  token: CapabilityToken,
  holder: Ed25519Signer,
  attempts: number,
  tool = 'read_file',
): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < attempts; i++) if (await use(kernel, token, holder, tool)) allowed++;
  return allowed;
}
function ledgerIsClean(path: string): void {
  const ledger = openLedger(path, { readonly: true });
  try {
    expect(ledger.db.prepare('SELECT count(*) AS n FROM pending_calls').get()).toEqual({ n: 0 });
    expect(verifyChain(ledger)).toMatchObject({ ok: true });
  } finally {
    ledger.close();
  }
}

const G: ToolGrant = { server_id: 'fs', tool_name: 'read_file', operations: ['invoke'], max_invocations: 3 };
const scopeOf = (...grants: ToolGrant[]): Scope => ({ grants });

describe('a delegated call counts against every ancestor grant it narrows', () => {
  it("a child repeating its parent's grant four times gets the parent's 3 calls in total, not 12", async () => {
    const { kernel, server, path } = kernelAt();
    const root = kernel.issueCapability({ subject: alice.publicKeyHex, scope: scopeOf(G) });
    const child = delegateCapability(root, alice, { delegatee: bob.publicKeyHex, scope: scopeOf(G, G, G, G) });
    expect(await countAllowed(kernel, child, bob, 12)).toBe(3);
    expect(await countAllowed(kernel, root, alice, 3)).toBe(0);
    expect(server.calls).toHaveLength(3);
    ledgerIsClean(path);
  });

  it('five self-delegated children of a used-up root get nothing; the refusal names the ancestor grant', async () => {
    const { kernel, server, path } = kernelAt();
    const root = kernel.issueCapability({ subject: alice.publicKeyHex, scope: scopeOf(G) });
    expect(await countAllowed(kernel, root, alice, 3)).toBe(3);
    for (let i = 0; i < 5; i++) {
      const self = delegateCapability(root, alice, {
        delegatee: alice.publicKeyHex,
        scope: scopeOf({ ...G, max_invocations: 3 }),
        expiresAt: root.expires_at - i,
      });
      const r = await kernel.evaluateToolCall({
        capability: self,
        caller: alice.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: ARGS.read_file,
      });
      expect(r).toMatchObject({
        ok: false,
        guard: 'budget',
        reason: expect.stringContaining(`ancestor ${root.id} grant 0`),
      });
    }
    expect(server.calls).toHaveLength(3);
    ledgerIsClean(path);
  });

  it("siblings share their parent's budget, and a grandchild's calls count at every level", async () => {
    const { kernel, path } = kernelAt();
    const root = kernel.issueCapability({ subject: alice.publicKeyHex, scope: scopeOf({ ...G, max_invocations: 5 }) });
    const a = delegateCapability(root, alice, {
      delegatee: bob.publicKeyHex,
      scope: scopeOf({ ...G, max_invocations: 4 }),
    });
    const b = delegateCapability(root, alice, {
      delegatee: alice.publicKeyHex,
      scope: scopeOf({ ...G, max_invocations: 4 }),
      expiresAt: root.expires_at - 1,
    });
    const grandchild = delegateCapability(a, bob, {
      delegatee: bob.publicKeyHex,
      scope: scopeOf({ ...G, max_invocations: 2 }),
    });
    expect(await countAllowed(kernel, grandchild, bob, 4)).toBe(2); // its own limit
    expect(await countAllowed(kernel, a, bob, 4)).toBe(2); // a's 4, two used by its child
    expect(await countAllowed(kernel, b, alice, 4)).toBe(1); // the root's 5, four used under a
    expect(await countAllowed(kernel, root, alice, 2)).toBe(0);
    ledgerIsClean(path);
  });

  it('the count along the chain survives a restart and a rebuild of the projections from the receipts', async () => {
    const { kernel, path } = kernelAt();
    const root = kernel.issueCapability({ subject: alice.publicKeyHex, scope: scopeOf(G) });
    const child = delegateCapability(root, alice, { delegatee: bob.publicKeyHex, scope: scopeOf(G) });
    expect(await countAllowed(kernel, child, bob, 2)).toBe(2);
    await kernel.close();
    opened.splice(opened.indexOf(kernel), 1);
    const ledger = openLedger(path);
    const before = ledger.db
      .prepare('SELECT capability_id, grant_index, kernel_key, invocations FROM grant_usage ORDER BY capability_id')
      .all();
    expect(before).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ capability_id: root.id, grant_index: 0, invocations: 2 }),
        expect.objectContaining({ capability_id: child.id, grant_index: 0, invocations: 2 }),
      ]),
    );
    rebuildProjections(ledger);
    expect(
      ledger.db
        .prepare('SELECT capability_id, grant_index, kernel_key, invocations FROM grant_usage ORDER BY capability_id')
        .all(),
    ).toEqual(before);
    ledger.close();
    const again = Kernel.open({ ledgerPath: path, seed: SEED });
    again.registerToolServer(new CountingToolServer());
    opened.push(again);
    expect(await countAllowed(again, root, alice, 3)).toBe(1);
    ledgerIsClean(path);
  });

  it('a grant that does not narrow the ancestor grant (another tool) is not counted against it', async () => {
    const { kernel, path } = kernelAt();
    const hello: ToolGrant = { server_id: 'fs', tool_name: 'hello_tool', operations: ['invoke'], max_invocations: 2 };
    const root = kernel.issueCapability({ subject: alice.publicKeyHex, scope: scopeOf(G, hello) });
    const child = delegateCapability(root, alice, { delegatee: bob.publicKeyHex, scope: scopeOf(hello) });
    expect(await countAllowed(kernel, child, bob, 3, 'hello_tool')).toBe(2);
    expect(await countAllowed(kernel, root, alice, 4)).toBe(3);
    ledgerIsClean(path);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: generated delegation trees never beat the root's budget.

interface Node {
  holder: number;
  grants: Array<{ from: number; tool: string; max: number | undefined }>;
  children: Node[];
}
const TOOLS = ['read_file', 'hello_tool'] as const;

/** A child grant narrowing parent grant `from`: same or narrower tool, a limit no higher (or the parent's). */
function childGrantArb(
  parentGrants: ToolGrant[],
): fc.Arbitrary<{ from: number; tool: string; max: number | undefined }> {
  return fc.nat({ max: parentGrants.length - 1 }).chain((from) => {
    const p = parentGrants[from]!;
    const tool = p.tool_name === '*' ? fc.constantFrom('*', ...TOOLS) : fc.constant(p.tool_name);
    const max =
      p.max_invocations === undefined
        ? fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined })
        : fc.option(fc.integer({ min: 1, max: p.max_invocations }), { nil: p.max_invocations });
    return fc.record({ from: fc.constant(from), tool, max });
  });
}

const grantOf = (g: { tool: string; max: number | undefined }): ToolGrant => ({
  server_id: 'fs',
  tool_name: g.tool,
  operations: ['invoke'],
  ...(g.max === undefined ? {} : { max_invocations: g.max }),
});

function treeArb(parentGrants: ToolGrant[], depth: number): fc.Arbitrary<Node> {
  return fc
    .record({
      holder: fc.nat({ max: holders.length - 1 }),
      grants: fc.array(childGrantArb(parentGrants), { minLength: 1, maxLength: 4 }),
    })
    .chain(({ holder, grants }) =>
      (depth === 0
        ? fc.constant([] as Node[])
        : fc.array(treeArb(grants.map(grantOf), depth - 1), { maxLength: 3 })
      ).map((children) => ({ holder, grants, children })),
    );
}

const rootGrantsArb = fc.array(
  fc.record({ tool: fc.constantFrom('*', ...TOOLS), max: fc.integer({ min: 1, max: 3 }) }),
  { minLength: 1, maxLength: 2 },
);

describe('property: no delegation tree gets more calls than the root allows', () => {
  it('for generated trees (depth ≤ 3, fan-out ≤ 3, repeated and narrowed grants, self-delegation), allowed calls per tool never exceed the root grants that cover it', async () => {
    await fc.assert(
      fc.asyncProperty(
        rootGrantsArb.chain((rootGrants) =>
          fc.record({
            rootGrants: fc.constant(rootGrants),
            children: fc.array(treeArb(rootGrants.map(grantOf), 2), { minLength: 1, maxLength: 3 }),
            calls: fc.array(fc.record({ node: fc.nat(), tool: fc.constantFrom(...TOOLS) }), {
              minLength: 1,
              maxLength: 24,
            }),
          }),
        ),
        async ({ rootGrants, children, calls }) => {
          const { kernel, server, path } = kernelAt();
          const root = kernel.issueCapability({
            subject: holders[0]!.publicKeyHex,
            scope: { grants: rootGrants.map(grantOf) },
          });
          const tokens: Array<{ token: CapabilityToken; holder: Ed25519Signer }> = [
            { token: root, holder: holders[0]! },
          ];
          let stamp = 0;
          const mint = (parent: CapabilityToken, parentHolder: Ed25519Signer, node: Node): void => {
            const holder = holders[node.holder]!;
            // Distinct lifetimes keep identical siblings apart (identical content would be the same token).
            const token = delegateCapability(parent, parentHolder, {
              delegatee: holder.publicKeyHex,
              scope: { grants: node.grants.map(grantOf) },
              expiresAt: parent.expires_at - ++stamp,
            });
            tokens.push({ token, holder });
            for (const c of node.children) mint(token, holder, c);
          };
          for (const c of children) mint(root, holders[0]!, c);
          for (const c of calls) {
            const { token, holder } = tokens[c.node % tokens.length]!;
            await use(kernel, token, holder, c.tool);
          }
          for (const tool of TOOLS) {
            const ran = server.calls.filter((x) => x.tool === tool).length;
            const cover = rootGrants.filter((g) => g.tool === '*' || g.tool === tool).reduce((s, g) => s + g.max, 0);
            expect(ran, `${tool}: ${ran} calls ran, the root allows ${cover}`).toBeLessThanOrEqual(cover);
          }
          expect(server.calls.length).toBeLessThanOrEqual(rootGrants.reduce((s, g) => s + g.max, 0));
          ledgerIsClean(path);
          await kernel.close();
          opened.splice(opened.indexOf(kernel), 1);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe("a token's identity cannot be borrowed", () => {
  // A holder (bob, holding his own root) signs a child that carries alice's token id: were ids
  // unchecked, its calls would use up alice's budget and revoking it would revoke alice.
  function childWithId(parent: CapabilityToken, signer: Ed25519Signer, id: string): unknown {
    const honest = delegateCapability(parent, signer, { delegatee: signer.publicKeyHex, scope: scopeOf(G) });
    const { signature: _s, delegation_chain: chain, ...body } = honest;
    const forged = { ...body, id };
    return { ...forged, signature: toHex(signer.sign(capabilitySigningText(forged))), delegation_chain: chain };
  }

  it("a child signed with another holder's token id is refused before any budget moves; the victim keeps all 3 calls and is not revoked", async () => {
    const { kernel, server, path } = kernelAt();
    const victim = kernel.issueCapability({ subject: alice.publicKeyHex, scope: scopeOf(G) });
    const own = kernel.issueCapability({ subject: bob.publicKeyHex, scope: scopeOf({ ...G, max_invocations: 100 }) });
    const borrowed = childWithId(own, bob, victim.id);
    for (let i = 0; i < 3; i++) {
      const r = await kernel.evaluateToolCall({
        capability: borrowed,
        caller: bob.publicKeyHex,
        serverId: 'fs',
        toolName: 'read_file',
        arguments: ARGS.read_file,
      });
      expect(r).toMatchObject({
        ok: false,
        reason: expect.stringContaining('does not carry the id its content gives it'),
      });
    }
    expect(server.calls).toHaveLength(0);
    // Revoking the honest child (by its derived id) touches only that child, never the victim.
    const honestChild = delegateCapability(own, bob, { delegatee: bob.publicKeyHex, scope: scopeOf(G) });
    await kernel.revokeCapability(honestChild.id);
    expect(await use(kernel, honestChild, bob)).toBe(false);
    expect(await countAllowed(kernel, victim, alice, 4)).toBe(3);
    ledgerIsClean(path);
  });
});
