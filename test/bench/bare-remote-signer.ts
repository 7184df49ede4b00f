/**
 * The least a signer in another process can cost an x402 purchase on Base, for the bench's floor row
 * (docs/BENCH.md, x402 on Base): an HTTP server that signs the EIP-3009 authorization it is sent with
 * a key it holds, records it in SQLite with an fsync, and answers the signature. The two things
 * Coffer does not give up, and nothing else: no policy, no ledger, no checks of what it signs.
 *
 * Run as its own process (`run-ts.js`); the key comes in BARE_SIGNER_KEY, the database file in
 * BARE_SIGNER_DB; it prints its URL on its first line.
 */
import { createServer } from 'node:http';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex, TypedDataDefinition } from 'viem';
import { openConnection } from '../../server/store/sqlite-driver.js';

const account = privateKeyToAccount(process.env.BARE_SIGNER_KEY as Hex);
const db = openConnection(process.env.BARE_SIGNER_DB!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
// No checkpoint in the commit that answers (Coffer checkpoints in the background): the log of a
// thousand small rows stays small.
db.pragma('wal_autocheckpoint = 0');
db.exec('CREATE TABLE IF NOT EXISTS authorizations (nonce TEXT PRIMARY KEY, signed TEXT NOT NULL)');
const record = db.prepare('INSERT INTO authorizations (nonce, signed) VALUES (?, ?)');

/** The authorization's integers came as strings (JSON has no bigint). */
const UINTS = ['value', 'validAfter', 'validBefore'] as const;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void (async () => {
      const typed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as TypedDataDefinition & { message: Record<string, unknown> };
      for (const key of UINTS) typed.message[key] = BigInt(typed.message[key] as string);
      // Signed before the write, written (durably) before the handout: Coffer's order.
      const signature = await account.signTypedData(typed);
      record.run(String(typed.message.nonce), signature);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ signature }));
    })().catch((error: unknown) => res.writeHead(400).end(String(error)));
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  console.log(`http://127.0.0.1:${address.port}`);
});
