import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { DEMO_LOCALNET, DEMO_MARKER_FILE } from '../wire/network-words.js';
import { lockDataDir } from '../boot/data-dir-lock.js';
import { refuse, type DemoRefusal } from './demo-refusal.js';

/** The file that makes a folder the demo's: written first, so a folder holding it never held anything else. */
const MARKER = DEMO_MARKER_FILE;

/** What DIR/demo-x402.json says, for a person who finds the folder later as much as for the demo. */
export const demoMarkerSchema = z.strictObject({
  kind: z.literal('coffer demo-x402'),
  network: z.literal(DEMO_LOCALNET),
  note: z.string(),
  createdAt: z.iso.datetime(),
});

/** The demo's folder, locked to this process: where each of its parts keeps its state. */
export interface DemoDir {
  path: string;
  /** Made for this run in the system's temporary folder, and removed when it stops. */
  temporary: boolean;
  /** The local cluster's SQLite file. */
  clusterFile: string;
  /** The Coffer data dir (never the user's ~/.coffer). */
  cofferDir: string;
  /** The demo agent's config, for `coffer fetch --config`. */
  agentConfig: string;
  /** The buyer wallet's key (Solana CLI format), for any x402 client. */
  buyerKey: string;
  /** The local EVM chain's SQLite file (its journal). */
  evmChainFile: string;
  /** The buyer's EVM private key (`0x` and 64 hex digits), for any x402 client on the EVM chain. */
  evmBuyerKey: string;
  /** Releases the lock, and removes the folder when it is temporary. */
  close(): void;
}

/**
 * The folder the demo runs in: without `asked`, a new temporary one; else `asked` when it is new,
 * empty, or one the demo made before (then it goes on where it stopped). Anything else is refused
 * untouched, so a mistyped `--data-dir ~/.coffer` can never mix test money into a real treasury.
 */
export function openDemoDir(asked: string | undefined): { ok: true; dir: DemoDir } | DemoRefusal {
  const temporary = asked === undefined;
  const path = temporary ? mkdtempSync(join(tmpdir(), 'coffer-demo-x402-')) : resolve(asked);
  if (!temporary) {
    const found = folderKind(path);
    if (found.kind === 'other') {
      return refuse(
        'data_dir_not_demo',
        `${path} is not a coffer demo-x402 folder (${found.holds}); the demo runs only in a new or empty folder, or one it made. Nothing in it was touched`,
      );
    }
  }
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (!existsSync(join(path, MARKER))) writeMarker(path);
  let lock: { release(): void };
  try {
    lock = lockDataDir(path);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'SQLITE_BUSY') throw error;
    return refuse('data_dir_in_use', `another coffer demo-x402 runs on ${path}: stop it first (Ctrl-C there), or use another --data-dir`);
  }
  return {
    ok: true,
    dir: {
      path,
      temporary,
      clusterFile: join(path, 'cluster.db'),
      cofferDir: join(path, 'coffer'),
      agentConfig: join(path, 'agent.json'),
      buyerKey: join(path, 'x402-buyer.json'),
      evmChainFile: join(path, 'evm-chain.db'),
      evmBuyerKey: join(path, 'x402-buyer-evm.key'),
      close: () => {
        lock.release();
        if (temporary) rmSync(path, { recursive: true, force: true });
      },
    },
  };
}

/** What a folder asked for is: new (absent or empty), the demo's, or something else (what it holds, in words). */
function folderKind(path: string): { kind: 'new' | 'demo' } | { kind: 'other'; holds: string } {
  if (!existsSync(path)) return { kind: 'new' };
  if (!statSync(path).isDirectory()) return { kind: 'other', holds: 'it is a file' };
  const entries = readdirSync(path);
  if (entries.length === 0) return { kind: 'new' };
  try {
    if (demoMarkerSchema.safeParse(JSON.parse(readFileSync(join(path, MARKER), 'utf8'))).success) return { kind: 'demo' };
  } catch {
    // no marker, or not one of the demo's: said below
  }
  return { kind: 'other', holds: `it holds ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}` };
}

function writeMarker(path: string): void {
  const marker: z.infer<typeof demoMarkerSchema> = {
    kind: 'coffer demo-x402',
    network: DEMO_LOCALNET,
    note: 'TEST MONEY on a local Solana cluster and a local EVM chain made by coffer demo-x402: not devnet, not mainnet, not Base; nothing here is worth anything',
    createdAt: new Date().toISOString(),
  };
  writeFileSync(join(path, MARKER), `${JSON.stringify(marker, null, 2)}\n`, { mode: 0o600 });
}
