import type { Address, Hash, Hex, LocalAccount, PublicClient } from 'viem';

/** How long the fees read from the node are used before they are read again. */
const FEES_FOR_MS = 1_000;

/**
 * An account that sends transactions for others (the treasury's, for every move on Base): one at a
 * time, each with the nonce after the last it sent (read from the node once, and again after a send
 * the node refused), signed here and sent raw. Fees: the node's suggested priority fee, and a max fee
 * of twice the latest block's base fee plus that (it stays valid through several full blocks), read at
 * most once a second.
 */
export class Relayer {
  private nextNonce: number | null = null;
  private fees: { readAt: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | null = null;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly account: LocalAccount,
    private readonly client: PublicClient,
    private readonly chainId: number,
  ) {}

  get address(): Address {
    return this.account.address;
  }

  send(to: Address, data: Hex, gas: bigint): Promise<Hash> {
    const sent = this.turn.then(async () => {
      const nonce = this.nextNonce ?? (await this.client.getTransactionCount({ address: this.account.address, blockTag: 'pending' }));
      const fees = await this.currentFees();
      const serializedTransaction = await this.account.signTransaction({
        type: 'eip1559',
        chainId: this.chainId,
        to,
        data,
        gas,
        nonce,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      try {
        const hash = await this.client.sendRawTransaction({ serializedTransaction });
        this.nextNonce = nonce + 1;
        return hash;
      } catch (error) {
        // Its nonce or fees were not what the node wanted: both are read again for the next send.
        this.nextNonce = null;
        this.fees = null;
        throw error;
      }
    });
    this.turn = sent.catch(() => undefined);
    return sent;
  }

  private async currentFees() {
    const now = Date.now();
    if (this.fees !== null && now - this.fees.readAt < FEES_FOR_MS) return this.fees;
    const [block, maxPriorityFeePerGas] = await Promise.all([this.client.getBlock(), this.client.estimateMaxPriorityFeePerGas()]);
    const baseFee = block.baseFeePerGas ?? 0n;
    this.fees = { readAt: now, maxFeePerGas: 2n * baseFee + maxPriorityFeePerGas, maxPriorityFeePerGas };
    return this.fees;
  }
}
