// An x402 buyer made only of the official packages (@x402/fetch, @x402/core, @x402/svm) and a Solana
// key file, as a seller's customer would write one. `coffer demo-x402` prints how to run it against
// its seller, with its buyer wallet and local cluster:
//   node examples/x402-official-buyer.mjs <key file> <cluster RPC URL> <paid URL>
// It prints the answer's status, a space, then its body; it exits 1 when the answer is not 2xx.
/* global fetch */
import { readFileSync } from 'node:fs';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';

const [keyFile, rpcUrl, url] = process.argv.slice(2);
if (!keyFile || !rpcUrl || !url) {
  console.error('usage: node x402-official-buyer.mjs <key file> <cluster RPC URL> <paid URL>');
  process.exit(2);
}
const signer = await createKeyPairSignerFromBytes(new Uint8Array(JSON.parse(readFileSync(keyFile, 'utf8'))));
const client = x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(signer, { rpcUrl }) }] });
const response = await wrapFetchWithPayment(fetch, client)(url);
console.log(`${response.status} ${await response.text()}`);
process.exitCode = response.ok ? 0 : 1;
