import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTransaction, recoverTransactionAddress, type Hex, type TransactionSerializable } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createEvmSigningThread, type EvmSigningThread } from '../../../../server/keys/evm-signing-thread.js';
import { TRANSFER_AUTHORIZATION_TYPES } from '../../../../server/chain/evm/authorization.js';

const RUN_TS = fileURLToPath(new URL('../../../../server/cli/run-ts.js', import.meta.url));
const CHILD = fileURLToPath(new URL('../../../fixtures/evm-signing-child.ts', import.meta.url));

const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()];

/** Every kind of signature the rail makes, of every key, `times` over with different contents. */
function asks(times: number) {
  return Array.from({ length: times }, (_, i) => {
    const key = keys[i % keys.length]!;
    const domain = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' } as const;
    const message = {
      from: privateKeyToAccount(key).address,
      to: privateKeyToAccount(keys[(i + 1) % keys.length]!).address,
      value: BigInt(10_000 + i),
      validAfter: 0n,
      validBefore: 1_900_000_000n + BigInt(i),
      nonce: `0x${i.toString(16).padStart(64, '0')}` as Hex,
    };
    const typed = { domain, types: TRANSFER_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization' as const, message };
    const transaction: TransactionSerializable = {
      type: 'eip1559',
      chainId: 84532,
      nonce: i,
      to: domain.verifyingContract,
      data: `0x${i.toString(16).padStart(8, '0')}`,
      gas: 150_000n,
      maxFeePerGas: 2_000_000_000n + BigInt(i),
      maxPriorityFeePerGas: 1_000_000n,
    };
    return { key, raw: new Uint8Array([i, 1, 2, 3]), typed, transaction };
  });
}

describe('EVM signing thread', () => {
  let thread: EvmSigningThread | null = null;
  afterEach(async () => {
    await thread?.close();
    thread = null;
  });

  it('signs exactly what the account signs in process, many at once', async () => {
    const said: string[] = [];
    thread = createEvmSigningThread((message) => said.push(message));
    const all = asks(30);
    const onThread = await Promise.all(
      all.map(async ({ key, raw, typed, transaction }) => {
        const account = thread!.account(privateKeyToAccount(key), key);
        return Promise.all([
          account.signMessage({ message: { raw } }),
          account.signTypedData(typed),
          account.signTransaction!(transaction),
        ]);
      }),
    );
    const here = await Promise.all(
      all.map(async ({ key, raw, typed, transaction }) => {
        const account = privateKeyToAccount(key);
        return Promise.all([account.signMessage({ message: { raw } }), account.signTypedData(typed), account.signTransaction(transaction)]);
      }),
    );
    expect(onThread).toEqual(here);
    // A transaction signed there is the sender's, with its fields as asked.
    const [, , signedTx] = onThread[4]!;
    expect(await recoverTransactionAddress({ serializedTransaction: signedTx as `0x02${string}` })).toBe(
      privateKeyToAccount(all[4]!.key).address,
    );
    expect(parseTransaction(signedTx)).toMatchObject({ nonce: 4, gas: 150_000n, chainId: 84532 });
    expect(said).toEqual([]);
  });

  it('signs on this thread where its worker cannot start, said once, the same bytes', async () => {
    const said: string[] = [];
    thread = createEvmSigningThread((message) => said.push(message), new URL('./no-such-worker.js', import.meta.url));
    const [first, second] = asks(2);
    const signed = await Promise.all(
      [first!, second!].map(({ key, typed }) => thread!.account(privateKeyToAccount(key), key).signTypedData(typed)),
    );
    expect(signed).toEqual(await Promise.all([first!, second!].map(({ key, typed }) => privateKeyToAccount(key).signTypedData(typed))));
    expect(await thread.account(privateKeyToAccount(first!.key), first!.key).signMessage({ message: 'later' })).toBe(
      await privateKeyToAccount(first!.key).signMessage({ message: 'later' }),
    );
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/EVM signatures are made on the serving thread/);
  });

  it('answers a signature asked while it closes, and every one after', async () => {
    thread = createEvmSigningThread(() => undefined);
    const [{ key, typed }] = asks(1) as [ReturnType<typeof asks>[number]];
    const account = thread.account(privateKeyToAccount(key), key);
    const expected = await privateKeyToAccount(key).signTypedData(typed);
    expect(await account.signTypedData(typed)).toBe(expected);
    const asked = account.signTypedData(typed);
    await thread.close();
    expect(await asked).toBe(expected);
    expect(await account.signTypedData(typed)).toBe(expected);
  });

  it('keeps a process alive only while a signature is awaited', () => {
    const child = spawnSync(process.execPath, [RUN_TS, CHILD], { encoding: 'utf8', timeout: 30_000 });
    expect(child.error).toBeUndefined();
    expect(child.status).toBe(0);
    const { signed, expected } = JSON.parse(child.stdout.trim());
    expect(signed).toMatch(/^0x[0-9a-f]{130}$/);
    expect(signed).toBe(expected);
  });
});
