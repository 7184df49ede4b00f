import {
  address,
  appendTransactionMessageInstruction,
  blockhash as toBlockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, getTransferCheckedInstruction } from '@solana-program/token';
import { usdcTokenAccount } from '../../server/chain/solana/usdc-transfer.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chain, PreparedTransfer, TransferRequest } from '../../server/core/ports/chain.js';
import { MemoryChain, randomAddress } from '../fixtures/memory-chain.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import { expectCofferError } from '../helpers/expect-error.js';
import { micro, simLedgerOf, startCoffer, type TestCoffer } from '../helpers/coffer.js';

/**
 * The Chain port's contract (server/core/ports/chain.ts), the same cases run against each adapter:
 * the embedded chain, an RPC cluster (a JSON-RPC server over LiteSVM whose preflight runs each
 * transaction for real), and the in-memory fake the core's unit tests run on, which must pass the
 * same cases.
 */
interface Subject {
  chain: Chain;
  /** A wallet holding USDC that the chain can sign for. */
  owner: string;
  /** The ledger's database, where the chain lives in it. */
  db: TestCoffer['coffer']['db'] | null;
  /** What each adapter says of a signed transfer nobody sent: it never lands (sim), or not yet (RPC). */
  unsentFate: 'dropped' | 'unknown';
}
let cluster: TestCluster;
const coffers: TestCoffer[] = [];
const subjects: Subject[] = [];
beforeAll(async () => {
  cluster = await new TestCluster().start();
  const sim = await startCoffer();
  const rpc = await startCoffer({ network: cluster.url, usdcMint: cluster.mint.address });
  coffers.push(sim, rpc);
  cluster.airdrop(rpc.owner);
  await cluster.depositFromOutside(rpc.owner, micro('5'));
  const memory = new MemoryChain();
  const memoryOwner = randomAddress();
  memory.mint(memoryOwner, micro('5'));
  subjects.push(
    { chain: sim.coffer.chain, owner: sim.owner, db: sim.coffer.db, unsentFate: 'dropped' },
    { chain: rpc.coffer.chain, owner: rpc.owner, db: null, unsentFate: 'unknown' },
    { chain: memory, owner: memoryOwner, db: null, unsentFate: 'unknown' },
  );
});
afterAll(async () => {
  for (const t of coffers) await t.stop();
  await cluster.stop();
});

const prepare = (chain: Chain, request: Omit<TransferRequest, 'memo' | 'reference'>): Promise<PreparedTransfer> => {
  const reference = `contract-${Math.random().toString(36).slice(2)}`;
  return chain.prepareTransfer({ ...request, memo: reference, reference });
};
const transfer = async (chain: Chain, request: Omit<TransferRequest, 'memo' | 'reference'>) =>
  chain.submitTransfer(await prepare(chain, request));
const newWallet = async () => (await generateKeyPairSigner()).address;
/** The programs a signed transfer's instructions call. */
const programsOf = (prepared: PreparedTransfer): string[] => {
  const { messageBytes } = getTransactionDecoder().decode(getBase64Encoder().encode(prepared.txWire));
  const message = getCompiledTransactionMessageDecoder().decode(messageBytes);
  return 'instructions' in message
    ? message.instructions.map((instruction) => message.staticAccounts[instruction.programAddressIndex]!)
    : [];
};

describe.each([0, 1, 2])('the Chain port (adapter %#: 0 the embedded chain, 1 an RPC cluster, 2 the in-memory fake)', (which) => {
  const subject = () => subjects[which]!;

  it('moves exactly the amount, opens the recipient account when asked, and reports balances and activity', async () => {
    const { chain, owner } = subject();
    const to = await newWallet();
    expect(await chain.hasUsdcAccount(to)).toBe(false);
    expect(await chain.hasActivity(to)).toBe(false);
    expect(await chain.usdcBalance(to)).toBe(0n);
    const before = await chain.usdcBalance(owner);
    await transfer(chain, { from: owner, to, feePayer: owner, amount: 250_000n, createRecipientAccount: true });
    expect(await chain.usdcBalance(to)).toBe(250_000n);
    expect(await chain.usdcBalance(owner)).toBe(before - 250_000n);
    expect(await chain.hasUsdcAccount(to)).toBe(true);
    expect(await chain.hasActivity(to)).toBe(true);
    const other = await newWallet();
    expect(await chain.usdcBalances([to, other, owner])).toEqual(
      new Map([
        [to, 250_000n],
        [other, 0n],
        [owner, before - 250_000n],
      ]),
    );
  });

  it('finds a landed transfer by its signature: who paid whom, how much, with which memo', async () => {
    const { chain, owner } = subject();
    const to = await newWallet();
    const prepared = await chain.prepareTransfer({
      from: owner,
      to,
      feePayer: owner,
      amount: 1_000n,
      createRecipientAccount: true,
      memo: 'the seller nonce',
      reference: 'ref-1',
    });
    await chain.submitTransfer(prepared);
    expect(await chain.findTransfer(prepared.txSignature)).toMatchObject({
      txSignature: prepared.txSignature,
      succeeded: true,
      from: owner,
      to,
      mint: chain.usdc,
      amount: 1_000n,
      memo: 'the seller nonce',
    });
    expect(await chain.fateOf(prepared)).toEqual({ state: 'succeeded' });
  });

  it("a chain the ledger holds executes a transfer inside the ledger's own write, a refusal answered as a value; a cluster holds none", async () => {
    const { chain, owner, db } = subject();
    if (chain.inLedger === null || db === null) {
      expect(chain.isSim).toBe(false);
      expect(chain.inLedger).toBeNull();
      return;
    }
    const ledger = chain.inLedger;
    const to = await newWallet();
    const held = await chain.usdcBalance(owner);
    const fine = await prepare(chain, { from: owner, to, feePayer: owner, amount: 10n, createRecipientAccount: true });
    const short = await prepare(chain, { from: owner, to, feePayer: owner, amount: held + 1n, createRecipientAccount: false });
    // One write of the ledger: both transfers and a row of the caller's own, committed together.
    const answers = db.transaction(() => {
      const landed = ledger.executeInCommit(fine);
      const refused = ledger.executeInCommit(short);
      db.prepare("INSERT INTO meta (key, value) VALUES ('contract-test', 'written in the same commit')").run();
      return { landed, refused };
    })();
    expect(answers.landed).toBeNull();
    expect(answers.refused).toMatchObject({ code: 'insufficient_funds' });
    expect(await chain.usdcBalance(to)).toBe(10n);
    expect(await chain.fateOf(fine)).toEqual({ state: 'succeeded' });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'contract-test'").pluck().get()).toBe('written in the same commit');
  });

  it('a transfer asked to open an account that is open lands and is found with its wallet; the embedded chain leaves the opening out', async () => {
    const { chain, owner } = subject();
    const to = await newWallet();
    const opening = await prepare(chain, { from: owner, to, feePayer: owner, amount: 5n, createRecipientAccount: true });
    await chain.submitTransfer(opening);
    const again = await prepare(chain, { from: owner, to, feePayer: owner, amount: 6n, createRecipientAccount: true });
    await chain.submitTransfer(again);
    expect(await chain.usdcBalance(to)).toBe(11n);
    for (const [prepared, amount] of [
      [opening, 5n],
      [again, 6n],
    ] as const) {
      expect(await chain.findTransfer(prepared.txSignature)).toMatchObject({ succeeded: true, from: owner, to, amount });
    }
    if (chain.isSim) {
      // The ledger knows the account is there: the second transaction asks the token programs nothing more.
      expect(programsOf(opening)).toContain(ASSOCIATED_TOKEN_PROGRAM_ADDRESS);
      expect(programsOf(again)).not.toContain(ASSOCIATED_TOKEN_PROGRAM_ADDRESS);
      expect(programsOf(again)).toContain(TOKEN_PROGRAM_ADDRESS);
    }
  });

  it('a signed transfer nobody sent never landed: dropped (the embedded chain decides at once) or unknown (a cluster may still see it)', async () => {
    const { chain, owner, unsentFate } = subject();
    const unsent = await prepare(chain, {
      from: owner,
      to: await newWallet(),
      feePayer: owner,
      amount: 10n,
      createRecipientAccount: true,
    });
    expect(await chain.fateOf(unsent)).toEqual({ state: unsentFate });
    expect(await chain.findTransfer(unsent.txSignature)).toBeNull();
  });

  it('a transfer sent again lands once at most, whenever and however often it is sent', async () => {
    const { chain, owner } = subject();
    const to = await newWallet();
    const prepared = await prepare(chain, { from: owner, to, feePayer: owner, amount: 7n, createRecipientAccount: true });
    await chain.submitTransfer(prepared);
    // Sent again after it landed: refused or ignored, never a second move.
    await chain.resend(prepared).catch(() => undefined);
    await chain.resend(prepared).catch(() => undefined);
    expect(await chain.usdcBalance(to)).toBe(7n);
    expect(await chain.fateOf(prepared)).toEqual({ state: 'succeeded' });
  });

  it('more USDC than the wallet holds is insufficient_funds, with or without the recipient account made in the same transaction', async () => {
    const { chain, owner } = subject();
    const held = await chain.usdcBalance(owner);
    const to = await newWallet();
    const base = { from: owner, to, feePayer: owner };
    await expectCofferError(transfer(chain, { ...base, amount: held + 1n, createRecipientAccount: true }), 'insufficient_funds');
    // The recipient's account made by a transfer that does go through; then short again, without making it.
    await transfer(chain, { ...base, amount: 1n, createRecipientAccount: true });
    await expectCofferError(transfer(chain, { ...base, amount: held, createRecipientAccount: false }), 'insufficient_funds');
  });

  it('any other failure is chain_rejected: here a recipient whose USDC account does not exist, not made', async () => {
    const { chain, owner } = subject();
    await expectCofferError(
      transfer(chain, { from: owner, to: await newWallet(), feePayer: owner, amount: 1n, createRecipientAccount: false }),
      'chain_rejected',
    );
  });
});

describe('the embedded chain', () => {
  it('finds a failed transfer whose destination is no token account, naming no wallet', async () => {
    const sim = coffers[0]!;
    const ledger = simLedgerOf(sim.coffer);
    const [payer, holder, destination] = await Promise.all([1, 2, 3].map(() => generateKeyPairSigner()));
    // The destination holds SOL and no data: a wallet, not a token account.
    ledger.airdrop(payer!.address, 1_000_000_000n);
    ledger.airdrop(destination!.address, 1_000_000n);
    const source = await usdcTokenAccount(address(sim.coffer.chain.usdc), holder!.address);
    const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer!, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(blockhash), lastValidBlockHeight }, m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferCheckedInstruction({
            source,
            mint: address(sim.coffer.chain.usdc),
            destination: destination!.address,
            authority: holder!,
            amount: 1n,
            decimals: 6,
          }),
          m,
        ),
      (m) => signTransactionMessageWithSigners(m),
    );
    expect(ledger.execute(getBase64EncodedWireTransaction(transaction)).failure).not.toBeNull();
    const found = await sim.coffer.chain.findTransfer(getSignatureFromTransaction(transaction));
    expect(found).toMatchObject({ succeeded: false, toTokenAccount: destination!.address, to: null });
  });
});
