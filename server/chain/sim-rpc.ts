import { z } from 'zod';
import {
  address as toAddress,
  getBase58Decoder,
  getAddressEncoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type Transaction,
} from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getMintSize, getTokenDecoder, getTokenSize } from '@solana-program/token';
import type { SimBlock, SimLedger, SimTransactionRow } from './sim-ledger.js';
import { LAMPORTS_PER_SIGNATURE, uiTokenAmount } from './rpc-shapes.js';
import type { RpcTransactionError } from './sim-transaction-errors.js';
import { MAX_AIRDROP_LAMPORTS, createSimFaucet } from './sim-faucet.js';
import { parsedInstruction } from './parsed-instructions.js';

/**
 * Solana JSON-RPC over the embedded chain: what `@solana/kit`'s `createSolanaRpc`, Coffer's own RPC
 * adapter and the x402 packages (client and facilitator) ask a cluster. Everything here is final at
 * once, so every commitment is answered as `finalized`. Transport-agnostic: a parsed request body in,
 * the response body out (the HTTP route and the test cluster both serve it).
 */
export function createSimRpc(ledger: SimLedger) {
  const context = () => ({ slot: ledger.slot, apiVersion: API_VERSION });
  const withContext = (value: unknown) => ({ context: context(), value });
  const faucet = createSimFaucet(ledger);

  const methods: Record<string, { params: z.ZodType; run: (params: never) => unknown }> = {
    getHealth: { params: noParams, run: () => 'ok' },
    getVersion: { params: noParams, run: () => ({ 'solana-core': API_VERSION, 'feature-set': 0 }) },
    getGenesisHash: { params: noParams, run: () => ledger.genesisHash },
    getSlot: { params: configOnly, run: () => ledger.slot },
    getBlockHeight: { params: configOnly, run: () => ledger.blockHeight },
    getEpochInfo: {
      params: configOnly,
      // Epochs of 432,000 slots, as on Solana's clusters: the slot's index within its own epoch.
      run: () => ({
        absoluteSlot: ledger.slot,
        blockHeight: ledger.blockHeight,
        epoch: ledger.slot / SLOTS_PER_EPOCH,
        slotIndex: ledger.slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: null,
      }),
    },
    getLatestBlockhash: {
      params: configOnly,
      run: () => {
        const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash();
        return withContext({ blockhash, lastValidBlockHeight });
      },
    },
    isBlockhashValid: {
      params: z.tuple([z.string()]).rest(z.unknown()),
      run: ([blockhash]: [string]) => withContext(ledger.isBlockhashUsable(blockhash)),
    },
    getMinimumBalanceForRentExemption: {
      params: z
        .tuple([
          z
            .number()
            .int()
            .min(0)
            .max(10 * 1024 * 1024),
        ])
        .rest(z.unknown()),
      run: ([size]: [number]) => ledger.svm.minimumBalanceForRentExemption(BigInt(size)),
    },
    getFeeForMessage: {
      params: z.tuple([z.string()]).rest(z.unknown()),
      run: ([encoded]: [string]) => {
        let message;
        try {
          message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(encoded));
        } catch {
          throw new RpcError(-32602, 'Invalid param: the message cannot be decoded');
        }
        // A node prices only a message whose blockhash it still takes.
        if (!ledger.isBlockhashUsable(message.lifetimeToken)) return withContext(null);
        return withContext(BigInt(LAMPORTS_PER_SIGNATURE) * BigInt(message.header.numSignerAccounts));
      },
    },
    getBalance: {
      params: z.tuple([address]).rest(z.unknown()),
      run: ([key]: [string]) => withContext(ledger.svm.getBalance(toAddress(key)) ?? 0n),
    },
    getAccountInfo: {
      params: z.tuple([address, accountConfig.optional()]),
      run: ([key, config]: [string, AccountConfig | undefined]) => withContext(encodeAccount(ledger, key, config)),
    },
    getMultipleAccounts: {
      params: z.tuple([z.array(address).max(100), accountConfig.optional()]),
      run: ([keys, config]: [string[], AccountConfig | undefined]) =>
        withContext(keys.map((key) => encodeAccount(ledger, key, { encoding: 'base64', ...config }))),
    },
    getTokenAccountBalance: {
      params: z.tuple([address]).rest(z.unknown()),
      run: ([key]: [string]) => {
        const token = getTokenDecoder().decode(tokenProgramData(ledger, key, getTokenSize(), 'Token account'));
        return withContext(uiTokenAmount(token.amount, ledger.decimalsOf(token.mint)));
      },
    },
    requestAirdrop: {
      params: z.tuple([address, z.number().int().min(1)]).rest(z.unknown()),
      run: ([to, lamports]: [string, number]) => {
        if (BigInt(lamports) > MAX_AIRDROP_LAMPORTS)
          throw new RpcError(-32602, `Invalid param: at most ${MAX_AIRDROP_LAMPORTS} lamports a request`);
        const sent = faucet.send(to, BigInt(lamports));
        if (sent.failure !== null) throw new RpcError(-32603, `Internal error: the airdrop did not land (${sent.failure})`);
        return sent.signature;
      },
    },
    getTokenSupply: {
      params: z.tuple([address]).rest(z.unknown()),
      run: ([key]: [string]) => {
        const mint = getMintDecoder().decode(tokenProgramData(ledger, key, getMintSize(), 'Token mint'));
        return withContext(uiTokenAmount(mint.supply, mint.decimals));
      },
    },
    // Nothing pays for priority here: every recent slot's fee is 0, as on an idle cluster.
    getRecentPrioritizationFees: {
      params: z.union([z.tuple([]), z.tuple([z.array(address).max(128)])]),
      run: () => [{ slot: ledger.slot, prioritizationFee: 0n }],
    },
    getTokenAccountsByOwner: {
      params: z.tuple([address, z.union([z.object({ mint: address }), z.object({ programId: address })]), accountConfig.optional()]),
      run: ([owner, filter, config]: [string, { mint: string } | { programId: string }, AccountConfig | undefined]) => {
        // SPL Token only: the embedded chain has no Token-2022 accounts; another program is no token program.
        if ('programId' in filter && filter.programId === TOKEN_2022_PROGRAM) return withContext([]);
        if ('programId' in filter && filter.programId !== TOKEN_PROGRAM_ADDRESS)
          throw new RpcError(-32602, 'Invalid param: unrecognized Token program id');
        const filters: AccountFilter[] = [{ dataSize: getTokenSize() }, { memcmp: { offset: 32, bytes: addressBytes(owner) } }];
        if ('mint' in filter) filters.push({ memcmp: { offset: 0, bytes: addressBytes(filter.mint) } });
        return withContext(programAccounts(ledger, TOKEN_PROGRAM_ADDRESS, filters, config));
      },
    },
    getProgramAccounts: {
      params: z.tuple([address, programAccountsConfig.optional()]),
      run: ([program, config]: [string, z.infer<typeof programAccountsConfig> | undefined]) => {
        const filters = (config?.filters ?? []).map((filter): AccountFilter => {
          if ('dataSize' in filter) return { dataSize: filter.dataSize };
          const { offset, bytes, encoding } = filter.memcmp;
          try {
            return {
              memcmp: {
                offset,
                bytes:
                  encoding === 'base64' ? new Uint8Array(Buffer.from(bytes, 'base64')) : new Uint8Array(getBase58Encoder().encode(bytes)),
              },
            };
          } catch {
            throw new RpcError(-32602, 'Invalid param: a memcmp filter whose bytes cannot be decoded');
          }
        });
        const found = programAccounts(ledger, program, filters, config);
        return config?.withContext ? withContext(found) : found;
      },
    },
    simulateTransaction: {
      params: z.tuple([z.string(), simulateConfig.optional()]),
      run: ([wire, config]: [string, z.infer<typeof simulateConfig> | undefined]) => {
        const transaction = decodeTransaction(wire, config?.encoding ?? 'base58');
        const sigVerify = config?.sigVerify ?? false;
        if (sigVerify) assertSigned(transaction);
        const result = ledger.simulate(transaction, { sigVerify, replaceRecentBlockhash: config?.replaceRecentBlockhash ?? false });
        return withContext({
          err: result.err,
          logs: result.logs,
          accounts: null,
          unitsConsumed: BigInt(result.unitsConsumed),
          returnData: null,
          innerInstructions: null,
          ...(result.replacementBlockhash ? { replacementBlockhash: result.replacementBlockhash } : {}),
        });
      },
    },
    sendTransaction: {
      params: z.tuple([z.string(), sendConfig.optional()]),
      run: ([input, config]: [string, z.infer<typeof sendConfig> | undefined]) => {
        const transaction = decodeTransaction(input, config?.encoding ?? 'base58');
        assertSigned(transaction);
        // Coffer's history keeps base64 bytes, whatever encoding the transaction came in.
        const wire = Buffer.from(getTransactionEncoderBytes(input, config?.encoding ?? 'base58')).toString('base64');
        if (!config?.skipPreflight) {
          // Preflight refuses what already landed (LiteSVM's simulation does not look at history).
          if (ledger.findTransaction(getSignatureFromTransaction(transaction)) !== null) throw preflightFailure('AlreadyProcessed', [], 0);
          const preflight = ledger.simulate(transaction, { sigVerify: true, replaceRecentBlockhash: false });
          if (preflight.err !== null) throw preflightFailure(preflight.err, preflight.logs, preflight.unitsConsumed);
        }
        const { signature } = ledger.execute(wire);
        // As on a cluster: without preflight, what cannot land is simply never seen.
        return signature;
      },
    },
    getSignatureStatuses: {
      params: z.tuple([z.array(z.string()).max(256)]).rest(z.unknown()),
      run: ([signatures]: [string[]]) =>
        withContext(
          signatures.map((signature) => {
            const found = ledger.findTransaction(signature);
            if (found === null) return null;
            const err = found.meta.err;
            return {
              slot: found.slot,
              confirmations: null,
              err,
              status: err === null ? { Ok: null } : { Err: err },
              confirmationStatus: 'finalized',
            };
          }),
        ),
    },
    getTransaction: {
      params: z.tuple([z.string(), transactionConfig.optional()]),
      run: ([signature, config]: [string, z.infer<typeof transactionConfig> | undefined]) => {
        const found = ledger.findTransaction(signature);
        return found === null ? null : encodeTransaction(found, config?.encoding ?? 'json', config?.maxSupportedTransactionVersion);
      },
    },
    getBlock: {
      params: z.tuple([slotParam, blockConfig.optional()]),
      run: ([slot, config]: [number, BlockConfig | undefined]) => encodeBlock(blockAt(ledger, slot), config ?? {}),
    },
    getBlockTime: {
      params: z.tuple([slotParam]),
      run: ([slot]: [number]) => BigInt(Math.floor(blockAt(ledger, slot).blockTime / 1000)),
    },
    // Every slot makes a block here (none is skipped). getBlocks(start, end?, config?): the end may
    // be left out, null, or the config in its place, as a node takes it.
    getBlocks: {
      params: z.tuple([slotParam, z.union([slotParam, blocksConfig, z.null()]).optional(), blocksConfig.optional()]),
      run: ([start, end]: [number, number | object | null | undefined]) => {
        const from = BigInt(start);
        const to = typeof end === 'number' ? BigInt(end) : from + BigInt(MAX_BLOCK_RANGE);
        if (to - from > BigInt(MAX_BLOCK_RANGE)) throw new RpcError(-32602, `Slot range too large; max ${MAX_BLOCK_RANGE}`);
        return blockSlots(ledger, from, to);
      },
    },
    getBlocksWithLimit: {
      params: z.tuple([slotParam, z.number().int().min(0), blocksConfig.optional()]),
      run: ([start, limit]: [number, number]) => {
        if (limit > MAX_BLOCK_RANGE) throw new RpcError(-32602, `Limit too large; max ${MAX_BLOCK_RANGE}`);
        const first = BigInt(start) > ledger.firstBlockSlot ? BigInt(start) : ledger.firstBlockSlot;
        return blockSlots(ledger, first, first + BigInt(limit) - 1n);
      },
    },
    getFirstAvailableBlock: { params: noParams, run: () => ledger.firstBlockSlot },
    getSignaturesForAddress: {
      params: z.tuple([address, signaturesConfig.optional()]),
      run: ([key, config]: [string, z.infer<typeof signaturesConfig> | undefined]) =>
        ledger.signaturesFor(key, { before: config?.before, until: config?.until, limit: config?.limit ?? 1000 }).map((row) => ({
          signature: row.signature,
          slot: row.slot,
          err: row.meta.err,
          memo: null,
          blockTime: BigInt(Math.floor(row.blockTime / 1000)),
          confirmationStatus: 'finalized',
        })),
    },
  };

  function callOne(request: unknown): { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: unknown } {
    const parsed = requestSchema.safeParse(request);
    if (!parsed.success) return { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } };
    const { id, method, params } = parsed.data;
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (handler === undefined) return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
    const args = handler.params.safeParse(params ?? []);
    if (!args.success)
      return { jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params: ${args.error.issues[0]?.message ?? 'invalid'}` } };
    try {
      return { jsonrpc: '2.0', id, result: handler.run(args.data as never) };
    } catch (error) {
      if (error instanceof RpcError)
        return {
          jsonrpc: '2.0',
          id,
          error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
        };
      return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${(error as Error).message}` } };
    }
  }

  return {
    /** Answers one request or a batch, as JSON text (u64 values written exactly, as a node does). */
    handle(body: unknown): string {
      if (Array.isArray(body)) {
        if (body.length === 0 || body.length > 100)
          return toJson({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
        return toJson(body.map(callOne));
      }
      return toJson(callOne(body));
    },
    methods: Object.keys(methods),
  };
}

export type SimRpc = ReturnType<typeof createSimRpc>;

const API_VERSION = '2.2.0';
/** The most slots getBlocks and getBlocksWithLimit answer at once, as a node's limit. */
const MAX_BLOCK_RANGE = 500_000;
const SLOTS_PER_EPOCH = 432_000n;
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** A JSON-RPC error with Solana's codes (-32002 preflight failure, -32003 signature failure, ...). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const requestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(200), z.number(), z.null()]).optional(),
  method: z.string().max(100),
  params: z.array(z.unknown()).max(10).optional(),
});

export const address = z.string().refine((text) => {
  try {
    toAddress(text);
    return true;
  } catch {
    return false;
  }
}, 'Invalid param: not a base58 address');
const commitment = z.enum(['processed', 'confirmed', 'finalized']).optional();
const noParams = z.array(z.unknown()).max(1);
const configOnly = z.tuple([]).rest(z.object({ commitment, minContextSlot: z.number().optional() }).loose());
export const accountConfig = z
  .object({
    encoding: z.enum(['base58', 'base64', 'base64+zstd', 'jsonParsed']).optional(),
    dataSlice: z.object({ offset: z.number().int().min(0), length: z.number().int().min(0) }).optional(),
    commitment,
  })
  .loose();
export type AccountConfig = z.infer<typeof accountConfig>;
const wireEncoding = z.enum(['base58', 'base64']).optional();
const simulateConfig = z
  .object({ encoding: wireEncoding, sigVerify: z.boolean().optional(), replaceRecentBlockhash: z.boolean().optional(), commitment })
  .loose();
const sendConfig = z
  .object({
    encoding: wireEncoding,
    skipPreflight: z.boolean().optional(),
    preflightCommitment: commitment,
    maxRetries: z.number().optional(),
  })
  .loose();
const transactionConfig = z
  .object({
    encoding: z.enum(['json', 'jsonParsed', 'base58', 'base64']).optional(),
    maxSupportedTransactionVersion: z.number().int().optional(),
    commitment,
  })
  .loose();
const slotParam = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
// A node gives blocks once they are confirmed, never at `processed`.
const blockCommitment = z.enum(['confirmed', 'finalized'], { error: 'Method does not support commitment below `confirmed`' }).optional();
const blocksConfig = z.object({ commitment: blockCommitment }).loose();
const blockConfig = z
  .object({
    encoding: z.enum(['json', 'jsonParsed', 'base58', 'base64']).optional(),
    transactionDetails: z.enum(['full', 'accounts', 'signatures', 'none']).optional(),
    rewards: z.boolean().optional(),
    maxSupportedTransactionVersion: z.number().int().optional(),
    commitment: blockCommitment,
  })
  .loose();
type BlockConfig = z.infer<typeof blockConfig>;
const signaturesConfig = z
  .object({ limit: z.number().int().min(1).max(1000).optional(), before: z.string().optional(), until: z.string().optional(), commitment })
  .loose();

function getTransactionEncoderBytes(input: string, encoding: 'base58' | 'base64'): Uint8Array {
  try {
    return new Uint8Array(encoding === 'base64' ? getBase64Encoder().encode(input) : getBase58Encoder().encode(input));
  } catch {
    throw new RpcError(-32602, `Invalid param: the transaction is not ${encoding}`);
  }
}

function decodeTransaction(input: string, encoding: 'base58' | 'base64'): Transaction {
  const bytes = getTransactionEncoderBytes(input, encoding);
  try {
    return getTransactionDecoder().decode(bytes) as Transaction;
  } catch {
    throw new RpcError(-32602, 'Invalid param: the transaction cannot be decoded');
  }
}

/** Every signature slot filled: what a node checks before anything else. */
function assertSigned(transaction: Transaction): void {
  for (const signature of Object.values(transaction.signatures)) {
    if (signature === null) throw new RpcError(-32003, 'Transaction signature verification failure');
  }
}

function preflightFailure(err: RpcTransactionError, logs: string[], unitsConsumed: number): RpcError {
  const named = typeof err === 'string' ? err : JSON.stringify(err);
  return new RpcError(-32002, `Transaction simulation failed: ${named}`, {
    err,
    logs,
    accounts: null,
    unitsConsumed: BigInt(unitsConsumed),
    returnData: null,
    innerInstructions: null,
  });
}

/** The data of an SPL Token account or mint (by its size); -32602 "not a …" for anything else. */
function tokenProgramData(ledger: SimLedger, key: string, size: number, what: string): Uint8Array {
  const account = ledger.account(key);
  if (!account.exists || account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length !== size) {
    throw new RpcError(-32602, `Invalid param: not a ${what}`);
  }
  return account.data;
}

type AccountFilter = { dataSize: number } | { memcmp: { offset: number; bytes: Uint8Array } };

const programAccountsConfig = accountConfig
  .extend({
    withContext: z.boolean().optional(),
    filters: z
      .array(
        z.union([
          z.object({ dataSize: z.number().int().min(0) }),
          z.object({
            memcmp: z.object({
              offset: z.number().int().min(0),
              bytes: z.string().max(1_000),
              encoding: z.enum(['base58', 'base64']).optional(),
            }),
          }),
        ]),
      )
      .max(4)
      .optional(),
  })
  .loose();

const addressBytes = (key: string): Uint8Array => new Uint8Array(getAddressEncoder().encode(toAddress(key)));

/** The accounts a program owns that pass every filter, each as `{pubkey, account}`, in address order. */
function programAccounts(ledger: SimLedger, program: string, filters: AccountFilter[], config: AccountConfig | undefined) {
  const passes = (data: Uint8Array) =>
    filters.every((filter) =>
      'dataSize' in filter
        ? data.length === filter.dataSize
        : filter.memcmp.offset + filter.memcmp.bytes.length <= data.length &&
          Buffer.from(data.subarray(filter.memcmp.offset, filter.memcmp.offset + filter.memcmp.bytes.length)).equals(filter.memcmp.bytes),
    );
  return ledger
    .accountsOwnedBy(program)
    .filter((account) => passes(account.data))
    .sort((a, b) => (a.address < b.address ? -1 : 1))
    .map((account) => ({ pubkey: account.address, account: encodeAccount(ledger, account.address, config) }))
    .filter((entry) => entry.account !== null);
}

export function encodeAccount(ledger: SimLedger, key: string, config: AccountConfig | undefined) {
  const account = ledger.account(key);
  if (!account.exists) return null;
  const encoding = config?.encoding ?? 'base58';
  const whole = new Uint8Array(account.data);
  const base = {
    executable: account.executable,
    lamports: account.lamports,
    owner: account.programAddress,
    rentEpoch: 0n,
    space: BigInt(whole.length),
  };
  if (encoding === 'jsonParsed' && config?.dataSlice === undefined) {
    const parsed = parseTokenProgramAccount(ledger, account.programAddress, whole);
    if (parsed !== null) return { ...base, data: parsed };
  }
  const slice = config?.dataSlice;
  const data = slice === undefined ? whole : whole.subarray(slice.offset, slice.offset + slice.length);
  if (encoding === 'base58') return { ...base, data: [getBase58Decoder().decode(data), 'base58'] };
  if (encoding === 'base64+zstd') throw new RpcError(-32602, 'Invalid param: base64+zstd is not supported here; ask for base64');
  return { ...base, data: [Buffer.from(data).toString('base64'), 'base64'] };
}

/** The `jsonParsed` form of SPL Token mints and accounts, as a node gives it; null for anything else. */
function parseTokenProgramAccount(ledger: SimLedger, owner: string, data: Uint8Array) {
  if (owner !== TOKEN_PROGRAM_ADDRESS) return null;
  if (data.length === getTokenSize()) {
    const token = getTokenDecoder().decode(data);
    return {
      program: 'spl-token',
      space: BigInt(data.length),
      parsed: {
        type: 'account',
        info: {
          isNative: token.isNative.__option === 'Some',
          mint: token.mint,
          owner: token.owner,
          state: ['uninitialized', 'initialized', 'frozen'][token.state] ?? 'initialized',
          tokenAmount: uiTokenAmount(token.amount, ledger.decimalsOf(token.mint)),
        },
      },
    };
  }
  if (data.length === getMintSize()) {
    const mint = getMintDecoder().decode(data);
    return {
      program: 'spl-token',
      space: BigInt(data.length),
      parsed: {
        type: 'mint',
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority.__option === 'Some' ? mint.freezeAuthority.value : null,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority.__option === 'Some' ? mint.mintAuthority.value : null,
          supply: mint.supply.toString(),
        },
      },
    };
  }
  return null;
}

/** The block made in a slot, or the error a node answers for a slot it cannot give one for. */
function blockAt(ledger: SimLedger, slot: number): SimBlock {
  const block = ledger.block(BigInt(slot));
  if (block === 'not_yet') throw new RpcError(-32004, `Block not available for slot ${slot}`);
  if (block === 'not_kept') throw new RpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`);
  return block;
}

/** The slots from `first` to `end` that have a block: all of them, from the first kept to the last made. */
function blockSlots(ledger: SimLedger, first: bigint, end: bigint): bigint[] {
  const from = first > ledger.firstBlockSlot ? first : ledger.firstBlockSlot;
  const last = end < ledger.slot ? end : ledger.slot;
  if (last < from) return [];
  return Array.from({ length: Number(last - from) + 1 }, (_, i) => from + BigInt(i));
}

/** A block as getBlock answers it: its transactions in full, their account keys, their signatures, or none. */
function encodeBlock(block: SimBlock, config: BlockConfig) {
  const details = config.transactionDetails ?? 'full';
  const head = {
    blockHeight: block.height,
    blockTime: BigInt(Math.floor(block.blockTime / 1000)),
    blockhash: block.blockhash,
    parentSlot: block.slot - 1n,
    previousBlockhash: block.previousBlockhash,
    ...(config.rewards === false ? {} : { rewards: [] }),
  };
  if (details === 'none') return head;
  if (details === 'signatures') return { ...head, signatures: block.transactions.map((row) => row.signature) };
  return {
    ...head,
    transactions: block.transactions.map((row) => {
      const { transaction, meta, version } = encodeTransaction(
        row,
        details === 'accounts' ? 'jsonParsed' : (config.encoding ?? 'json'),
        config.maxSupportedTransactionVersion,
      );
      if (details === 'full') return { transaction, meta, version };
      // Its account keys and signatures, and of its meta what balances and fees say (a node's `accounts`).
      const { accountKeys } = (transaction as { message: { accountKeys: unknown[] } }).message;
      const { err, fee, status, preBalances, postBalances, preTokenBalances, postTokenBalances } = meta;
      return {
        transaction: { accountKeys, signatures: (transaction as { signatures: string[] }).signatures },
        meta: { err, fee, status, preBalances, postBalances, preTokenBalances, postTokenBalances },
        version,
      };
    }),
  };
}

function encodeTransaction(row: SimTransactionRow, encoding: 'json' | 'jsonParsed' | 'base58' | 'base64', maxVersion: number | undefined) {
  const bytes = new Uint8Array(getBase64Encoder().encode(row.wire));
  const transaction = getTransactionDecoder().decode(bytes);
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  const version = message.version === 'legacy' ? 'legacy' : message.version;
  if (version !== 'legacy' && maxVersion === undefined) {
    throw new RpcError(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const err = row.meta.err;
  const meta = {
    err,
    status: err === null ? { Ok: null } : { Err: err },
    fee: BigInt(row.meta.fee),
    preBalances: [],
    postBalances: [],
    innerInstructions: [],
    logMessages: row.meta.logMessages,
    preTokenBalances: row.meta.preTokenBalances,
    postTokenBalances: row.meta.postTokenBalances,
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: BigInt(row.meta.computeUnitsConsumed),
  };
  const base = { slot: row.slot, blockTime: BigInt(Math.floor(row.blockTime / 1000)), version, meta };
  if (encoding === 'base64') return { ...base, transaction: [row.wire, 'base64'] };
  if (encoding === 'base58') return { ...base, transaction: [getBase58Decoder().decode(bytes), 'base58'] };
  if (!('instructions' in message)) throw new RpcError(-32602, 'Invalid param: this transaction can be read as base64 only');
  const base58 = getBase58Decoder();
  const { header } = message;
  const keys = message.staticAccounts.map(String);
  // An unsigned slot reads as 64 ones, as a node writes it.
  const signatures = Object.values(transaction.signatures).map((signature) =>
    signature === null ? '1'.repeat(64) : base58.decode(signature),
  );
  if (encoding === 'jsonParsed') {
    const writable = (index: number) =>
      index < header.numSignerAccounts
        ? index < header.numSignerAccounts - header.numReadonlySignerAccounts
        : index < keys.length - header.numReadonlyNonSignerAccounts;
    return {
      ...base,
      transaction: {
        signatures,
        message: {
          accountKeys: keys.map((pubkey, index) => ({
            pubkey,
            signer: index < header.numSignerAccounts,
            source: 'transaction',
            writable: writable(index),
          })),
          recentBlockhash: message.lifetimeToken,
          instructions: message.instructions.map((instruction) => parsedInstruction(instruction, keys)),
          ...(version === 'legacy' ? {} : { addressTableLookups: [] }),
        },
      },
    };
  }
  return {
    ...base,
    transaction: {
      signatures,
      message: {
        header: {
          numRequiredSignatures: message.header.numSignerAccounts,
          numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
          numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
        },
        accountKeys: message.staticAccounts,
        recentBlockhash: message.lifetimeToken,
        instructions: message.instructions.map((instruction) => ({
          programIdIndex: instruction.programAddressIndex,
          accounts: instruction.accountIndices ?? [],
          data: base58.decode(instruction.data ?? new Uint8Array()),
          stackHeight: null,
        })),
        ...(version === 'legacy' ? {} : { addressTableLookups: [] }),
      },
    },
  };
}

/** JSON with u64 values (bigints) written as plain numbers, exactly, as a node writes them. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000${v.toString()}\u0000` : v)).replace(
    /"\\u0000(-?\d+)\\u0000"/g,
    '$1',
  );
}
