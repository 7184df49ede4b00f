/**
 * What a confirmed transaction did to token balances, read from its metadata (`preTokenBalances` and
 * `postTokenBalances`) rather than from its instructions. That is how a deposit is seen whatever
 * shape it came in: TransferChecked or the older Transfer, several transfers in one transaction, or a
 * transfer made by another program (a multisig, an exchange's batch) as an inner instruction.
 */
export interface TokenBalanceEntry {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

interface TokenCredit {
  /** Smallest units the account gained (0 when it did not gain). */
  amount: bigint;
  /** The owner of the account of that mint that lost the most, else the fee payer. */
  from: string;
}

/**
 * How much `tokenAccount` (of `mint`) gained in one transaction, and from whom. `accountKeys` is the
 * transaction's full account list (static keys, then loaded writable, then loaded readonly), which
 * the balance entries index into.
 */
export function creditOf(
  tokenAccount: string,
  mint: string,
  accountKeys: readonly string[],
  pre: readonly TokenBalanceEntry[],
  post: readonly TokenBalanceEntry[],
): TokenCredit {
  const changes = new Map<number, { owner: string | undefined; delta: bigint }>();
  const add = (entry: TokenBalanceEntry, sign: 1n | -1n) => {
    if (entry.mint !== mint) return;
    const current = changes.get(entry.accountIndex) ?? { owner: entry.owner, delta: 0n };
    current.delta += sign * BigInt(entry.uiTokenAmount.amount);
    current.owner ??= entry.owner;
    changes.set(entry.accountIndex, current);
  };
  for (const entry of pre) add(entry, -1n);
  for (const entry of post) add(entry, 1n);

  const index = accountKeys.indexOf(tokenAccount);
  const gained = index === -1 ? 0n : (changes.get(index)?.delta ?? 0n);
  let from = accountKeys[0] ?? '';
  let largestLoss = 0n;
  for (const [i, change] of changes) {
    if (i !== index && change.delta < largestLoss && change.owner !== undefined) {
      largestLoss = change.delta;
      from = change.owner;
    }
  }
  return { amount: gained > 0n ? gained : 0n, from };
}
