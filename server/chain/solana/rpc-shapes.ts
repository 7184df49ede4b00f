/** Values as Solana's JSON-RPC writes them, shared by the embedded chain and its JSON-RPC (no native code here). */

/** Fee per signature, as on Solana's clusters. */
export const LAMPORTS_PER_SIGNATURE = 5000;

/** A token account's balance as a node reports it in a transaction's metadata. */
export interface RpcTokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: ReturnType<typeof uiTokenAmount>;
}

/** A token amount as the RPC spells it. */
export function uiTokenAmount(amount: bigint, decimals: number) {
  const text = formatUnits(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

function formatUnits(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, '0');
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction === '' ? digits.slice(0, -decimals) : `${digits.slice(0, -decimals)}.${fraction}`;
}
