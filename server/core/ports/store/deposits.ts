/** Port: USDC that came into the treasury (found on chain, or minted by the sim faucet). */
import type { ReplayableTransfer, SentTransaction } from './transfers.js';

/** USDC that came into the treasury: found on chain (confirmed at once), or minted by the sim faucet. */
export interface DepositRecord extends ReplayableTransfer {
  id: string;
  owner: string;
  amount: bigint;
  from: string;
  source: 'faucet' | 'chain';
}

/** A transfer into the treasury the deposit watcher found on chain. */
export interface ChainDeposit {
  id: string;
  owner: string;
  txSignature: string;
  amount: bigint;
  from: string;
  createdAt: number;
}

export interface DepositStore {
  /** Records a deposit found on chain; false when its signature is recorded already. */
  insertChainDeposit(deposit: ChainDeposit): boolean;
  /** Reserves a faucet mint as a pending deposit (signed and sent after). */
  insertFaucetDeposit(deposit: DepositRecord): void;
  getDeposit(id: string): DepositRecord | null;
  findDepositByIdempotencyKey(owner: string, key: string, since: number): DepositRecord | null;
  markDepositSent(id: string, sent: SentTransaction): boolean;
  /** Settles a pending row; false when it was no longer pending (someone else settled it). */
  settleDeposit(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  pendingDeposits(): DepositRecord[];
  /** Confirmed deposits, newest first. */
  listDeposits(owner: string, limit: number): DepositRecord[];
}
