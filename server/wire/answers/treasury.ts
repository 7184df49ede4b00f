/** The /v1 answers about the treasury: money allocated to an agent and given back, deposits, the sim faucet. */
import type { Rail } from '../rails.js';

/** What moved between the treasury and an agent, its transaction, and the agent's balance after. */
type MovedFunds = {
  amount: string;
  currency: 'USDC';
  /** The rail it moved on: the treasury's and the agent's wallets there (`balance` is the agent's there). */
  rail: Rail;
  txSignature: string;
  balance: string;
};

/** POST /v1/agents/:id/allocate, carried out. */
export type Allocation = MovedFunds & {
  agentId: string;
  allocationId: string;
};

/** POST /v1/agents/:id/return. */
export type Returned = MovedFunds & {
  agentId: string;
  returnId: string;
};

/** USDC moved between the treasury and an agent, as the owner's history of them lists it. */
export type FundsMove = {
  id: string;
  /** `allocation`: from the treasury to the agent; `return`: from the agent back to the treasury. */
  kind: 'allocation' | 'return';
  agentId: string;
  /** The rail it moved on: between the treasury's and the agent's wallets there. */
  rail: Rail;
  amount: string;
  currency: 'USDC';
  /** `pending` until its transaction is seen on chain; a `failed` one (its `errorCode`) moved nothing. */
  status: 'pending' | 'confirmed' | 'failed';
  errorCode: string | null;
  txSignature: string | null;
  timestamp: string;
  settledAt: string | null;
};

/** GET /v1/treasury/allocations: newest first. */
export type FundsMoves = {
  allocations: FundsMove[];
};

/** `chain`: found arriving on chain; `faucet`: minted by the sim network's faucet. */
export type DepositSource = 'chain' | 'faucet';

/** USDC that came into the treasury. */
export type Deposit = {
  id: string;
  /** The rail it came in on: into the treasury's wallet there. */
  rail: Rail;
  txSignature: string;
  amount: string;
  currency: 'USDC';
  from: string;
  timestamp: string;
  source: DepositSource;
};

export type Deposits = {
  deposits: Deposit[];
};

/** POST /v1/treasury/faucet (sim): the deposit minted, and the treasury's balance after. */
export type FaucetResult = {
  deposit: Deposit;
  /** The treasury's wallet on the faucet's rail, and its balance there. */
  treasury: { walletAddress: string; rail: Rail; balance: string; currency: 'USDC' };
};
