// A producer in its own process, for the multi-process tests. Uses the built library (dist/).
//   node append-worker.mjs <db> <worker-id> batch <count>   append <count> receipts, 8 in flight, then print "done"
//   node append-worker.mjs <db> <worker-id> crash [thread]  append forever, one at a time; print each id once its append resolved
//                                                           (thread: through the writer thread, LedgerWriter.onThread)
import { hashCanonical, LedgerWriter, openLedger, signerFromSeed, signReceipt } from '../../dist/src/index.js';

const [db, workerId, mode, countArg] = process.argv.slice(2);
const signer = signerFromSeed(new Uint8Array(32).fill(7));
const onThread = countArg === 'thread';
const ledger = onThread ? null : openLedger(db);
const writer = onThread ? await LedgerWriter.onThread(db) : new LedgerWriter(ledger);

function receipt(i) {
  const parameters = { path: `/w${workerId}/file-${i}` };
  return signReceipt(
    {
      timestamp: 1_790_000_000 + i,
      capability_id: `cap-w${workerId}`,
      tool_server: 'fs',
      tool_name: 'read_text_file',
      action: { parameters },
      decision: { verdict: 'allow' },
      receipt_kind: 'mediated_decision',
      boundary_class: 'prevent',
      tool_origin: 'caller_executed',
      redaction_mode: 'none',
      content_hash: hashCanonical({ i }),
      policy_hash: hashCanonical({ p: 1 }),
      trust_level: 'mediated',
    },
    signer,
    { nonce: `w${workerId}-${i}` },
  );
}

/** Own sessions plus one session every worker shares, so session chains cross processes. */
function session(i) {
  return i % 3 === 0 ? 'shared' : `w${workerId}-${i % 2}`;
}

if (mode === 'batch') {
  const count = Number(countArg);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await writer.append({ receipt: receipt(i), sessionId: session(i), producer: `worker-${workerId}` });
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  await writer.close();
  ledger.close();
  process.stdout.write('done\n');
} else if (mode === 'crash') {
  for (let i = 0; ; i++) {
    const r = receipt(i);
    await writer.append({ receipt: r, sessionId: session(i), producer: 'crash-worker' });
    process.stdout.write(`${r.id}\n`); // pipes are synchronous on Linux: written before the next append starts
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
