/** The /v1 answers about the treasury: money allocated to an agent and given back, deposits, the sim faucet. */

/** What moved between the treasury and an agent, its transaction, and the agent's balance after. */
type MovedFunds = {
  amount: string;
  currency: 'USDC';
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

/** `chain`: found arriving on chain; `faucet`: minted by the sim network's faucet. */
export type DepositSource = 'chain' | 'faucet';

/** USDC that came into the treasury. */
export type Deposit = {
  id: string;
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
  treasury: { walletAddress: string; balance: string; currency: 'USDC' };
};
