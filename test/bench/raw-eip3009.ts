/**
 * The baseline of the Base rail's /pay row: the embedded EVM chain (EDR, its journal in a SQLite file
 * in WAL, as `coffer serve` keeps it) running a raw EIP-3009 transfer, signed by the payer and sent by
 * a relayer with viem, one after another, each waited for (its receipt). No HTTP, no policy, no ledger.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createWalletClient, custom, parseEther, parseSignature, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from '../../server/store/database.js';
import { migrate } from '../../server/store/migrations.js';
import { EMBEDDED_EVM_CHAIN_ID, EMBEDDED_EVM_VIEM_CHAIN, openEmbeddedEvm } from '../../server/chain/evm/sim/chain.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { TRANSFER_AUTHORIZATION_TYPES } from '../../server/chain/evm/authorization.js';
import { tempDataDir } from '../helpers/coffer.js';

/** A raw EIP-3009 transfer set up once; `rate(n)` sends n more, one after another, and answers per second. */
export interface RawEip3009 {
  rate(n: number): Promise<number>;
  close(): void;
}

export async function openRawEip3009(): Promise<RawEip3009> {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'coffer.db'), 'normal');
  const close = () => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    migrate(db);
    const evm = await openEmbeddedEvm(db, { now: () => Date.now() });
    const [payer, relayer] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
    await evm.sendTestEth(relayer.address, parseEther('100'));
    await evm.mintTestUsdc(payer.address, 10n ** 12n);
    const transport = custom({ request: ({ method, params }) => evm.request(method, params as unknown[]) }, { retryCount: 0 });
    const wallet = createWalletClient({ account: relayer, transport, chain: EMBEDDED_EVM_VIEM_CHAIN });
    const domain = { name: 'USDC', version: '2', chainId: EMBEDDED_EVM_CHAIN_ID, verifyingContract: evm.usdc } as const;
    const types = TRANSFER_AUTHORIZATION_TYPES;
    const seller = privateKeyToAccount(generatePrivateKey()).address;
    const transfer = async () => {
      const message = {
        from: payer.address,
        to: seller,
        value: 10_000n,
        validAfter: 0n,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
        nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
      };
      const signature = await payer.signTypedData({ domain, types, primaryType: 'TransferWithAuthorization', message });
      const { v, r, s, yParity } = parseSignature(signature);
      const hash = await wallet.writeContract({
        address: evm.usdc,
        abi: USDC_ABI,
        functionName: 'transferWithAuthorization',
        args: [
          message.from,
          message.to,
          message.value,
          message.validAfter,
          message.validBefore,
          message.nonce,
          Number(v ?? BigInt(yParity + 27)),
          r,
          s,
        ],
      });
      await evm.request('eth_getTransactionReceipt', [hash]);
    };
    // Warm-up, not measured, as Coffer's row has: the first transfers compile the hot code.
    for (let i = 0; i < 20; i++) await transfer();
    return {
      rate: async (n) => {
        const start = performance.now();
        for (let i = 0; i < n; i++) await transfer();
        return n / ((performance.now() - start) / 1000);
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
