import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, getAddress, http, parseEther, parseGwei, type Address, type Hash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileBackend } from '../../server/keys/file-backend.js';
import { createKeyVault, type WalletKeyVault } from '../../server/keys/key-vault.js';
import { EvmChain } from '../../server/chain/evm/chain.js';
import { STUCK_AFTER_MS } from '../../server/chain/evm/relayer.js';
import { BASE_SEPOLIA } from '../../server/chain/evm/networks.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { manualClock } from '../helpers/coffer.js';

/**
 * Issue 49, point 4: a transaction the chain leaves waiting (the base fee rose past its max fee) holds
 * back every later one of its sender, so the relayer replaces it at its nonce with higher fees, and a
 * transfer sent again while its transaction waits is that transaction, not a second one. On a node that
 * mines only when told, as a real chain mines on its own time.
 */
const dir = mkdtempSync(join(tmpdir(), 'coffer-evm-relayer-'));

describe('the relayer on a chain whose base fee spikes', () => {
  const clock = manualClock();
  let node: TestEvmNode;
  let chain: EvmChain;
  let vault: WalletKeyVault;
  let treasury: Address;
  let agent: Address;
  let reference = 0;
  const client = () => createPublicClient({ transport: http(node.url, { retryCount: 0 }) });
  const sentCount = (blockTag: 'latest' | 'pending') => client().getTransactionCount({ address: treasury, blockTag });
  /** The agent's USDC as the token says it: what each move must have given it, once, where a count of transactions cannot tell. */
  const agentUsdc = () => client().readContract({ address: node.usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [agent] });
  const prepare = (amount: bigint) =>
    chain.prepareTransfer({
      from: treasury,
      to: agent,
      amount,
      memo: `coffer allocation ref-${++reference}`,
      reference: `ref-${reference}`,
      feePayer: treasury,
      createRecipientAccount: true,
    });

  beforeAll(async () => {
    node = await TestEvmNode.start();
    vault = createKeyVault(createFileBackend(join(dir, 'keys')));
    chain = new EvmChain(
      { name: BASE_SEPOLIA.name, chainId: BASE_SEPOLIA.chainId, usdc: node.usdc, isSim: false },
      http(node.url, { retryCount: 0 }),
      vault,
      clock,
      null,
    );
    const owner = await vault.createWallet({ kind: 'treasury' });
    treasury = getAddress(await vault.evmWalletOf(owner, owner));
    agent = getAddress(await vault.evmWalletOf(await vault.createWallet({ kind: 'agent', treasury: owner }), owner));
    await node.fundEth(treasury, parseEther('10'));
    await node.mint(treasury, 10_000_000n);
    await node.setAutomine(false);
  });
  afterAll(async () => {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replaces a transaction left below the base fee at its nonce, and sends no second one for the same transfer', async () => {
    const first = await prepare(1_000_000n);
    const mined = await sentCount('latest');
    const held = await agentUsdc();
    await chain.resend(first);
    expect(await sentCount('pending')).toBe(mined + 1);
    // The base fee jumps far above what the transaction offers: the next block leaves it waiting.
    await node.setNextBaseFee(parseGwei('500'));
    await node.mine(1);
    expect(await sentCount('latest')).toBe(mined);
    expect((await chain.fateOf(first)).state).toBe('unknown');

    // Sent again before it counts as stuck: the same transaction, nothing new (a second one carrying
    // it would be mined too, failing, and the count below would be one higher).
    await chain.resend(first);

    // Stuck now: the next send replaces it at its nonce with today's fees, then goes after it.
    clock.advance(STUCK_AFTER_MS);
    const second = await prepare(2_000_000n);
    await chain.resend(second);
    await node.mine(1);
    expect(await sentCount('latest')).toBe(mined + 2);
    const fates = [await chain.fateOf(first), await chain.fateOf(second)];
    expect(fates.map((fate) => fate.state)).toEqual(['succeeded', 'succeeded']);
    const landed = await client().getTransactionReceipt({ hash: (fates[0] as { landedAs: string }).landedAs as Hash });
    expect(landed.status).toBe('success');
    // Each move gave the agent its amount once: 1 + 2 USDC.
    expect((await agentUsdc()) - held).toBe(3_000_000n);
  });

  it('after a restart, takes the nonce a transaction sent before it waits at, and lands both moves', async () => {
    await node.setNextBaseFee(parseGwei('1'));
    await node.mine(1);
    const first = await prepare(1_500_000n);
    const mined = await sentCount('latest');
    const held = await agentUsdc();
    await chain.resend(first);
    await node.setNextBaseFee(parseGwei('5000'));
    await node.mine(1);
    expect(await sentCount('latest')).toBe(mined);

    // Another process on the same keys: its relayer knows nothing of what waits.
    const restarted = new EvmChain(
      { name: BASE_SEPOLIA.name, chainId: BASE_SEPOLIA.chainId, usdc: node.usdc, isSim: false },
      http(node.url, { retryCount: 0 }),
      vault,
      clock,
      null,
    );
    const second = await restarted.prepareTransfer({
      from: treasury,
      to: agent,
      amount: 2_500_000n,
      memo: 'coffer allocation after-restart',
      reference: 'after-restart',
      feePayer: treasury,
      createRecipientAccount: true,
    });
    await restarted.resend(second);
    await node.mine(1);
    // The second took the waiting nonce; the first, replaced there, is sent again (as reconciliation
    // does) and lands after it.
    expect((await restarted.fateOf(second)).state).toBe('succeeded');
    expect((await restarted.fateOf(first)).state).toBe('unknown');
    await restarted.resend(first);
    await node.mine(1);
    expect((await restarted.fateOf(first)).state).toBe('succeeded');
    expect(await sentCount('latest')).toBe(mined + 2);
    expect((await agentUsdc()) - held).toBe(4_000_000n);
  });

  it("takes the next nonce at once where the treasury's key sent a transaction outside Coffer (the owner's wallet app)", async () => {
    await node.setNextBaseFee(parseGwei('1'));
    await node.mine(1);
    // A move first, so the relayer has counted its nonce.
    const held = await agentUsdc();
    const first = await prepare(500_000n);
    await chain.resend(first);
    await node.mine(1);
    expect((await chain.fateOf(first)).state).toBe('succeeded');
    // The owner opens the treasury's Base account elsewhere (the phrase opens it in MetaMask) and sends from it.
    const rpc = (method: string, params: unknown[]) => client().request({ method, params } as never);
    await rpc('hardhat_impersonateAccount', [treasury]);
    await rpc('eth_sendTransaction', [{ from: treasury, to: agent, value: '0x1' }]);
    await rpc('hardhat_stopImpersonatingAccount', [treasury]);
    await node.mine(1);
    const mined = await sentCount('latest');
    // The next move: the node refuses the nonce the relayer counted ("nonce too low"), and the same
    // send takes the next one, rather than fail the move (and its payment) until reconciliation.
    const second = await prepare(700_000n);
    await chain.resend(second);
    await node.mine(1);
    expect((await chain.fateOf(second)).state).toBe('succeeded');
    expect(await sentCount('latest')).toBe(mined + 1);
    expect((await agentUsdc()) - held).toBe(1_200_000n);
  });
});
