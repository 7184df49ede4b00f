import bs58 from 'bs58';
import { address } from '@solana/kit';
import { clusterRpc } from '../../chain/solana/cluster/cluster-rpc.js';
import { TOKEN_PROGRAM_ADDRESS, TRANSFER_CHECKED_DISCRIMINATOR } from '@solana-program/token';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { SchemeNetworkClient } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { ExactSvmSchemeV1 } from '@x402/svm/v1';
import { CofferError } from '../../wire/errors.js';
import type { X402Names, X402Offer, X402Requirement, X402Signed } from '../../core/ports/x402.js';
import type { WalletSigners } from '../../chain/solana/signers.js';
import { MEMO_PROGRAM_ADDRESS, usdcTokenAccount } from '../../chain/solana/usdc-transfer.js';
import type { Lifetime } from '../../chain/solana/cluster/recent-blockhash.js';
import { templatedExactScheme } from './exact-template.js';
import { chosenEntry } from './offer-terms.js';
import { instructionsOf, readWireTransaction, type WireInstruction, type WireTransaction } from '../../chain/solana/wire-transaction.js';

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Lighthouse assertions, which some wallets append; they move nothing. */
const LIGHTHOUSE_PROGRAM = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95';
/** Block heights a blockhash stays valid (150), plus room for a node of ours that lags the one the client read. */
const BLOCKHASH_LIFETIME_WITH_MARGIN = 300n;

/** A read of the cluster; its failure is the cluster's unavailability, said so. */
async function readChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof CofferError) throw error;
    throw new CofferError('chain_unavailable', `the cluster could not be read: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The package's v2 exact scheme, signing with this blockhash: the requirements it is handed carry it as
 * `extra.recentBlockhash` (which the package honours), while the payload's `accepted` stays the
 * seller's own requirements (x402Client builds it from what it selected, not from what the scheme saw).
 */
function withBlockhash(scheme: SchemeNetworkClient, lifetime: Lifetime): SchemeNetworkClient {
  return {
    scheme: scheme.scheme,
    createPaymentPayload: (version, requirements) =>
      scheme.createPaymentPayload(version, {
        ...requirements,
        extra: {
          ...requirements.extra,
          recentBlockhash: lifetime.blockhash,
          lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
        },
      }),
  };
}

const readU64 = (data: Uint8Array, offset: number): bigint => new DataView(data.buffer, data.byteOffset + offset, 8).getBigUint64(0, true);

/**
 * Paying x402 on Solana with the official packages: `@x402/svm`'s exact scheme builds and signs the
 * transaction (v1 and v2) with the agent's key from the vault, on the cluster Coffer pays on. What it
 * signed is then read back and checked: one TransferChecked of exactly the asked amount of that mint
 * from the agent's USDC account to the recipient's, the fee paid by the seller's fee payer, and
 * nothing else that could touch the agent's money.
 */
export function solanaX402Payments(options: {
  rpcUrl: string;
  vault: WalletSigners;
  networks: X402Names;
  /** The cluster's latest blockhash and its last valid height: the chain's own, read at most once a slot (recent-blockhash.ts). */
  latestBlockhash: () => Promise<Lifetime>;
}): { networks: X402Names; sign: (offer: X402Offer, requirement: X402Requirement, payer: string) => Promise<X402Signed> } {
  const signing: Signing = {
    rpc: clusterRpc(options.rpcUrl),
    schemesOf: keptSchemes(options.vault, options.rpcUrl),
    latestBlockhash: options.latestBlockhash,
  };
  return { networks: options.networks, sign: (offer, requirement, payer) => signOffer(offer, requirement, payer, signing) };
}

/** The package's schemes that sign for one wallet: v2's (templated) and v1's. */
type Schemes = { v2: SchemeNetworkClient; v1: ExactSvmSchemeV1 };

/** What signing an offer reads: the cluster, each wallet's schemes, the latest blockhash. */
interface Signing {
  rpc: ReturnType<typeof clusterRpc>;
  schemesOf: (payer: string) => Promise<Schemes>;
  latestBlockhash: () => Promise<Lifetime>;
}

/**
 * One pair of the package's schemes per wallet, kept: each remembers the mint it read (its decimals
 * and token program), so a payment asks the cluster for no more than its blockhash.
 * The v2 scheme assembles each purchase from a template the package compiled (see exact-template.ts).
 */
function keptSchemes(vault: WalletSigners, rpcUrl: string): (payer: string) => Promise<Schemes> {
  const schemes = new Map<string, Promise<Schemes>>();
  return (payer) => {
    let kept = schemes.get(payer);
    if (kept === undefined) {
      kept = vault.signer(payer).then((signer) => ({
        v2: templatedExactScheme(new ExactSvmScheme(signer, { rpcUrl }), payer, () => vault.signBytes(payer)),
        v1: new ExactSvmSchemeV1(signer, { rpcUrl }),
      }));
      schemes.set(payer, kept);
      kept.catch(() => schemes.delete(payer));
    }
    return kept;
  };
}

/** The offer's chosen requirement signed by the package as `payer`, checked, with the header that carries it. */
async function signOffer(offer: X402Offer, requirement: X402Requirement, payer: string, signing: Signing): Promise<X402Signed> {
  const { required, chosen } = chosenEntry(offer, requirement);
  // v2: Coffer reads the blockhash itself, so it knows exactly the last height the transaction can
  // land at; the package signs with it (its `extra.recentBlockhash`), the seller's terms untouched.
  // Asked first thing: it is the one read of the cluster a purchase waits for.
  const reading = required.x402Version === 1 ? null : readChain(() => signing.latestBlockhash());
  // Awaited below; handled now too, so a failure while the schemes load is no unhandled rejection.
  reading?.catch(() => undefined);
  const schemes = await signing.schemesOf(payer);
  const lifetime = reading === null ? null : await reading;
  const v2 = lifetime === null ? schemes.v2 : withBlockhash(schemes.v2, lifetime);
  // Coffer's policy decides what may be paid; the package's own spend controls would only
  // second-guess it (and know nothing of the registry or the budget).
  const client = new x402Client(() => chosen)
    .register('solana:*', v2)
    .registerV1('solana', schemes.v1)
    .registerV1('solana-devnet', schemes.v1)
    .setSpendControls(false);
  const http = new x402HTTPClient(client);
  let payload;
  try {
    payload = await http.createPaymentPayload(required);
  } catch (error) {
    throw new CofferError('chain_unavailable', `the x402 payment could not be signed: ${(error as Error).message}`, { cause: error });
  }
  const transaction = (payload.payload as { transaction?: unknown }).transaction;
  if (typeof transaction !== 'string') throw new CofferError('internal', 'the x402 package signed no transaction');
  const { payerSignature, blockhash } = await checkSignedTransaction(transaction, requirement, payer);
  const lastValidBlockHeight = await lastValidHeight(lifetime, blockhash, signing.rpc);
  const [[name, value]] = Object.entries(http.encodePaymentSignatureHeader(payload)) as [[string, string]];
  return { header: { name, value }, txWire: transaction, payerSignature, lifetimeEnd: lastValidBlockHeight };
}

/** The last block height a signed transaction can land at: its blockhash's (v2), or an upper bound of it (v1). */
async function lastValidHeight(lifetime: Lifetime | null, blockhash: string, rpc: Signing['rpc']): Promise<bigint> {
  if (lifetime !== null) {
    if (blockhash !== lifetime.blockhash) throw new CofferError('internal', 'the x402 package signed with another blockhash');
    return lifetime.lastValidBlockHeight;
  }
  // v1's package reads its own blockhash: an upper bound of the last height it can land at is
  // the height now (read after it) plus a blockhash's lifetime, with room for a lagging node.
  const height = await readChain(() => rpc.getBlockHeight({ commitment: 'processed' }).send());
  return height + BLOCKHASH_LIFETIME_WITH_MARGIN;
}

/**
 * Reads back what was signed and refuses anything but the offer: the fee payer is the seller's (the
 * payer never pays fees nor signs for anyone), one TransferChecked of the amount of that mint from the
 * payer's USDC account to the recipient's, and otherwise only compute-budget, memo and assertion
 * instructions. Returns the payer's signature and the blockhash it was signed with.
 */
export async function checkSignedTransaction(
  wire: string,
  requirement: X402Requirement,
  payer: string,
): Promise<{ payerSignature: string; blockhash: string }> {
  const refuse = (why: string) =>
    new CofferError('internal', `the x402 transaction was not what the offer asked (${why}); it was not handed out`);
  let transaction: WireTransaction;
  let instructions: WireInstruction[];
  try {
    transaction = readWireTransaction(Buffer.from(wire, 'base64'));
    instructions = instructionsOf(transaction);
  } catch (error) {
    throw refuse((error as Error).message);
  }
  if (transaction.version !== 0 && transaction.version !== 'legacy') throw refuse('an unknown message version');
  const keys = transaction.accountKeys.map(String);
  if (keys[0] !== requirement.feePayer || keys[0] === payer) throw refuse('the fee payer');
  const source = await usdcTokenAccount(address(requirement.asset), address(payer));
  const destination = await usdcTokenAccount(address(requirement.asset), address(requirement.payTo));
  let transfers = 0;
  for (const instruction of instructions) {
    const program = keys[instruction.program];
    const accounts = instruction.accounts.map((index) => keys[index]);
    const { data } = instruction;
    if (program === COMPUTE_BUDGET_PROGRAM || program === MEMO_PROGRAM_ADDRESS || program === LIGHTHOUSE_PROGRAM) continue;
    if (program !== TOKEN_PROGRAM_ADDRESS || data[0] !== TRANSFER_CHECKED_DISCRIMINATOR || data.length < 10)
      throw refuse(`an instruction of ${program}`);
    transfers += 1;
    const [from, mint, to, authority] = accounts;
    if (from !== source || mint !== requirement.asset || to !== destination || authority !== payer) throw refuse('the transfer accounts');
    if (readU64(data, 1) !== requirement.amount) throw refuse('the amount');
  }
  if (transfers !== 1) throw refuse(`${transfers} transfers`);
  const signer = keys.indexOf(payer);
  const signature = signer >= 0 && signer < transaction.signerCount ? transaction.signatures[signer] : undefined;
  if (signature === undefined || signature.every((byte) => byte === 0)) throw refuse('no signature of the payer');
  return { payerSignature: bs58.encode(signature), blockhash: transaction.blockhash };
}
