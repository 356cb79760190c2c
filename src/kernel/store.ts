/**
 * Where a kernel keeps its evidence (DESIGN §6, §11): the budget and revocation reads, the shared
 * commits of reservations and receipts, and recovery of calls left without a receipt — on an
 * SQLite file (synchronous reads, `BEGIN IMMEDIATE` commits) or on PostgreSQL (store-pg.ts), one
 * face for the kernel so the order of DESIGN §7 is written once.
 * Owns: which ledger a kernel writes and how it reaches it. Imports the ledger area; must not
 * import edges or cli.
 */
import type { Ed25519Signer } from '../crypto/index.js';
import { ChioError } from '../errors.js';
import { firstRevoked, invocationsUsed, LedgerWriter, openLedger } from '../ledger/index.js';
import type {
  AppendRequest,
  AppendResult,
  CallReservation,
  Ledger,
  ReservationSync,
  ReserveOutcome,
} from '../ledger/index.js';
import { isPostgresUrl } from '../ledger/pg/open.js';
import { Checkpointer } from './checkpointer.js';
import type { CheckpointSchedule } from './checkpointer.js';
import { settleUnrecorded } from './recovery.js';
import type { RecoveryContext, RecoveryReport } from './recovery.js';

/** A value now (SQLite) or later (PostgreSQL): the kernel awaits either. */
export type MaybePromise<T> = T | Promise<T>;

export interface KernelStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Allowed receipts by trusted keys plus calls in flight anywhere, for one grant. */
  invocationsUsed(capabilityId: string, grantIndex: number, trustedKeys: readonly string[]): MaybePromise<number>;
  /** The first of `capabilityIds` revoked by a trusted key. */
  firstRevoked(capabilityIds: readonly string[], trustedKeys: readonly string[]): MaybePromise<string | undefined>;
  /** Group-committed with the receipts; rejects when the reservation cannot be recorded (the call must not run). */
  reserve(reservation: CallReservation): Promise<ReserveOutcome>;
  /** Resolves after the commit that holds it. */
  append(request: AppendRequest): Promise<AppendResult>;
  flush(): Promise<void>;
  /** Settles the pending rows this process may settle (recovery.ts). */
  settle(ctx: RecoveryContext): MaybePromise<RecoveryReport>;
  /** Signed checkpoints while the kernel appends, when this store makes them. */
  readonly checkpointer: Checkpointer | undefined;
  close(): Promise<void>;
}

export interface SqliteStoreOptions {
  reservationSync: ReservationSync;
  signer: Ed25519Signer;
  checkpoints: CheckpointSchedule | false;
  log: (message: string) => void;
}

/**
 * An SQLite ledger: one connection for reads (budgets, revocations, checkpoints) and one
 * synchronous=FULL connection whose LedgerWriter group-commits reservations and receipts.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions): KernelStore {
  if (isPostgresUrl(path)) {
    throw new ChioError(
      'CHIO-LEDGER-POSTGRES-UNSUPPORTED',
      'Kernel.open takes an SQLite ledger; open a kernel on a postgres:// ledger with `await Kernel.connect(options)`',
    );
  }
  const receiptLedger = openLedger(path);
  let ledger: Ledger;
  try {
    ledger = openLedger(path, { create: false });
  } catch (e) {
    receiptLedger.close();
    throw e;
  }
  const writer = new LedgerWriter(receiptLedger, { reservationSync: options.reservationSync });
  let checkpointer: Checkpointer | undefined;
  try {
    checkpointer =
      options.checkpoints === false
        ? undefined
        : new Checkpointer(ledger, options.signer, options.checkpoints, options.log);
  } catch (e) {
    ledger.close();
    receiptLedger.close();
    throw e;
  }
  return {
    kind: 'sqlite',
    checkpointer,
    invocationsUsed: (capabilityId, grantIndex, keys) => invocationsUsed(ledger, capabilityId, grantIndex, keys),
    firstRevoked: (ids, keys) => firstRevoked(ledger, ids, keys),
    reserve: (reservation) => writer.reserve(reservation),
    append: (request) => writer.append(request),
    flush: () => writer.flush(),
    settle: (ctx) => settleUnrecorded({ ...ctx, ledger: receiptLedger }),
    async close() {
      // A clean shutdown leaves a checkpoint of everything this producer appended.
      await checkpointer?.close();
      await writer.close();
      receiptLedger.close();
      ledger.close();
    },
  };
}
