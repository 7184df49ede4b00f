import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintDecoder,
  getMintEncoder,
  getMintSize,
  getMintToCheckedInstruction,
} from '@solana-program/token';
import { openDatabase } from '../store/database.js';
import type { SqliteDatabase } from '../store/sqlite-driver.js';
import { createSimChainStore } from '../chain/solana/sim/store.js';
import { SimLedger } from '../chain/solana/sim/ledger.js';
import { createSimRpc, type SimRpc } from '../chain/solana/sim/json-rpc/rpc.js';
import { USDC_MINTS } from '../chain/solana/networks.js';
import { tokenAmount, usdcTokenAccount } from '../chain/solana/usdc-transfer.js';
import { systemClock } from '../core/ports/keys.js';
import { loopbackRefusal } from '../http/guards.js';
import { listenOnLoopback } from '../boot/loopback-server.js';

export interface LocalClusterOptions {
  /** The SQLite file its accounts and transactions live in (made if absent, reopened if there). */
  file: string;
  /** The genesis hash it answers, which names the cluster to Coffer; one of its own when left out. */
  genesisHash?: string;
  /**
   * USDC at devnet's mint address (the only kind of USDC x402's packages accept off mainnet), or a
   * 6-decimal mint of its own made at each start.
   */
  usdc: 'devnet-address' | 'own-mint';
  /** 0 (the default): a free port. */
  port?: number;
}

/** JSON-RPC requests are small; anything larger is refused before it is read whole. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A Solana cluster on this machine: Coffer's embedded chain (LiteSVM behind SimLedger, persisted in
 * its own SQLite file) answering Solana JSON-RPC over HTTP on 127.0.0.1, with a USDC mint whose
 * authority it holds, so it can hand out test SOL and test USDC. `coffer demo-x402` runs one for the
 * official x402 packages and a Coffer to pay through; the tests' cluster (test/fixtures) is one too.
 */
export class LocalCluster {
  url = '';
  port = 0;
  ledger!: SimLedger;
  /** The USDC mint (at devnet's address, or its own). */
  mint!: { address: Address };
  protected db!: SqliteDatabase;
  protected rpc!: SimRpc;
  /** The mint authority and the payer of what the cluster does itself: a key of this run, in memory only. */
  protected authority!: KeyPairSigner;
  private server: Server | null = null;

  constructor(protected readonly options: LocalClusterOptions) {}

  async start(): Promise<this> {
    this.db = openDatabase(this.options.file, 'normal');
    try {
      this.ledger = SimLedger.open(
        createSimChainStore(this.db),
        systemClock,
        this.options.genesisHash === undefined ? {} : { genesisHash: this.options.genesisHash },
      );
      this.rpc = createSimRpc(this.ledger);
      this.authority = await generateKeyPairSigner();
      this.ledger.airdrop(this.authority.address, 1_000_000_000_000n);
      this.mint = { address: this.options.usdc === 'devnet-address' ? this.placeDevnetMint() : await this.createOwnMint() };
      const listening = await listenOnLoopback((req, res) => this.handleHttp(req, res), this.options.port ?? 0, {
        requestTimeoutMs: 60_000,
      });
      this.server = listening.server;
      this.port = listening.port;
      this.url = `http://127.0.0.1:${this.port}`;
      return this;
    } catch (error) {
      this.db.close();
      throw error;
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server !== null) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    this.db.close();
  }

  /** Gives a wallet test SOL (for fees and rent). */
  airdrop(wallet: string, sol = 10n): void {
    this.ledger.airdrop(wallet, sol * 1_000_000_000n);
  }

  /** Mints test USDC (micro-USDC) to a wallet, its USDC account opened if needed (0 only opens it). */
  async mintUsdc(wallet: string, amount: bigint): Promise<string> {
    const [token] = await findAssociatedTokenPda({ mint: this.mint.address, owner: address(wallet), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    return this.execute([
      getCreateAssociatedTokenIdempotentInstruction({ payer: this.authority, ata: token, owner: address(wallet), mint: this.mint.address }),
      getMintToCheckedInstruction({ mint: this.mint.address, token, mintAuthority: this.authority, amount, decimals: 6 }),
    ]);
  }

  /** Whether a wallet has a USDC account on the cluster (the first mint to it opens one). */
  async hasUsdcAccount(wallet: string): Promise<boolean> {
    return this.ledger.account(await usdcTokenAccount(this.mint.address, address(wallet))).exists;
  }

  /** A wallet's test USDC (micro-USDC), 0 when it has no USDC account. */
  async usdcBalance(wallet: string): Promise<bigint> {
    const account = this.ledger.account(await usdcTokenAccount(this.mint.address, address(wallet)));
    return account.exists ? tokenAmount(account.data) : 0n;
  }

  /** Sends a signed wire transaction (base64) as a client would; its signature, or the cluster's refusal thrown. */
  sendWire(wire: string): string {
    const answer = JSON.parse(
      this.rpc.handle({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] }),
    ) as { result?: string; error?: { message: string } };
    if (answer.result === undefined) throw new Error(answer.error?.message ?? 'not sent');
    return answer.result;
  }

  /** One HTTP request: addressed to this loopback port only (no DNS rebinding), then one JSON-RPC body. */
  protected handleHttp(req: IncomingMessage, res: ServerResponse): void {
    const reply = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    };
    const refusal = loopbackRefusal(req, this.port);
    if (refusal !== null) return reply(403, rpcError(null, -32600, refusal.message));
    if (req.method !== 'POST') return reply(405, rpcError(null, -32600, 'JSON-RPC is POSTed'));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reply(413, rpcError(null, -32600, 'the request is larger than 1 MiB'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(200, rpcError(null, -32700, 'Parse error'));
      }
      void this.answer(body).then(
        (text) => reply(200, text),
        (error: unknown) => reply(500, rpcError(null, -32603, `Internal error: ${(error as Error).message}`)),
      );
    });
  }

  /** The answer to a JSON-RPC body (one request or a batch): the embedded chain's own JSON-RPC. */
  protected async answer(body: unknown): Promise<string> {
    return this.rpc.handle(body);
  }

  /** Runs instructions in one transaction, paid by the authority unless told; its signature. */
  protected async execute(instructions: Instruction[], feePayer: KeyPairSigner = this.authority): Promise<string> {
    const latest = this.ledger.latestBlockhash();
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash(latest.blockhash), lastValidBlockHeight: latest.lastValidBlockHeight },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => signTransactionMessageWithSigners(m),
    );
    return this.sendWire(getBase64EncodedWireTransaction(transaction));
  }

  /**
   * USDC at devnet's own mint address, minted by this run's authority: LiteSVM can hold any account.
   * Reopened, the mint keeps its supply and gets this run's authority (the last one's key is gone).
   */
  private placeDevnetMint(): Address {
    const mint = address(USDC_MINTS.devnet);
    const existing = this.ledger.account(mint);
    const supply = existing.exists ? getMintDecoder().decode(existing.data).supply : 0n;
    const data = getMintEncoder().encode({
      mintAuthority: { __option: 'Some', value: this.authority.address },
      supply,
      decimals: 6,
      isInitialized: true,
      freezeAuthority: { __option: 'None' },
    });
    this.ledger.svm.setAccount({
      address: mint,
      lamports: lamports(this.ledger.svm.minimumBalanceForRentExemption(BigInt(getMintSize()))),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      data: new Uint8Array(data),
      executable: false,
      space: BigInt(getMintSize()),
    });
    this.ledger.persistAccounts([mint]);
    return mint;
  }

  /** A 6-decimal mint of its own, made at this start. */
  private async createOwnMint(): Promise<Address> {
    const mint = await generateKeyPairSigner();
    const space = BigInt(getMintSize());
    await this.execute([
      getCreateAccountInstruction({
        payer: this.authority,
        newAccount: mint,
        lamports: this.ledger.svm.minimumBalanceForRentExemption(space),
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: this.authority.address }),
    ]);
    return mint.address;
  }
}

const rpcError = (id: null, code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
