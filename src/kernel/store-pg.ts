/**
 * A kernel's store on a PostgreSQL ledger (DESIGN §11): kernels on many hosts reserve, append and
 * recover against one ledger. Budget and revocation reads go to the pool; reservations and
 * receipts are group-committed by one PgLedgerWriter per process, serialized across hosts by the
 * append lock, so a budget holds across every host that shares the ledger.
 * Checkpoints are made on the same schedule as on SQLite (checkpointer.ts), under the append lock
 * (../ledger/pg/checkpoints.ts); the Merkle subtrees are kept by every append.
 * Owns: the kernel's use of a PostgreSQL ledger. Imports the ledger area; must not import edges or cli.
 */
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { createCheckpointPg, latestCheckpointPg } from '../ledger/pg/checkpoints.js';
import { openPgLedger } from '../ledger/pg/open.js';
import {
  appendIfPendingPg,
  firstRevokedPg,
  invocationsUsedPg,
  pendingReservationsPg,
} from '../ledger/pg/reservations.js';
import { PgLedgerWriter } from '../ledger/pg/writer.js';
import { Checkpointer } from './checkpointer.js';
import type { CheckpointSchedule, CheckpointTarget } from './checkpointer.js';
import { settleUnrecordedAsync } from './recovery.js';
import type { KernelStore } from './store.js';

/**
 * A budget or revocation read that fails (the connection lost, the server restarting) refuses the
 * call before anything is reserved or run, with a stable code instead of the driver's error.
 */
async function readOrRefuse<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof ChioError) throw e;
    throw new ChioError(
      'CHIO-LEDGER-UNREACHABLE',
      `cannot read ${what} from the ledger, so the call will not run: ${(e as Error)?.message ?? String(e)}`,
      { cause: e },
    );
  }
}

export interface PgStoreOptions {
  signer: Ed25519Signer;
  checkpoints: CheckpointSchedule | false;
  log: (message: string) => void;
}

export async function openPgStore(url: string, options: PgStoreOptions): Promise<KernelStore> {
  const ledger = await openPgLedger(url);
  let checkpointer: Checkpointer | undefined;
  try {
    if (options.checkpoints !== false) {
      const target: CheckpointTarget = {
        latestSize: async () => (await latestCheckpointPg(ledger.pool))?.treeSize ?? 0,
        create: (signer, o) => createCheckpointPg(ledger, signer, o),
      };
      checkpointer = new Checkpointer(
        target,
        options.signer,
        options.checkpoints,
        options.log,
        await target.latestSize(),
      );
    }
  } catch (e) {
    await ledger.close();
    throw e;
  }
  const writer = new PgLedgerWriter(ledger);
  return {
    kind: 'postgres',
    checkpointer,
    invocationsUsed: (capabilityId, grantIndex, keys) =>
      readOrRefuse('the budget', () => invocationsUsedPg(ledger.pool, capabilityId, grantIndex, keys)),
    firstRevoked: (ids, keys) => readOrRefuse('revocations', () => firstRevokedPg(ledger.pool, ids, keys)),
    reserve: (reservation) => writer.reserve(reservation),
    append: (request) => writer.append(request),
    flush: () => writer.flush(),
    settle: (ctx) =>
      settleUnrecordedAsync(ctx, {
        pending: () => pendingReservationsPg(ledger),
        appendIfPending: (request) => appendIfPendingPg(ledger, request),
      }),
    async close() {
      await writer.close();
      // A clean shutdown leaves a checkpoint of everything this producer appended.
      await checkpointer?.close();
      await ledger.close();
    },
  };
}
