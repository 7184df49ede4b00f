// An x402 buyer made only of the official packages (@x402/fetch, @x402/core, @x402/svm, @x402/evm) and
// a key file, as a seller's customer would write one. `coffer demo-x402` prints how to run it against
// its seller, with its buyer wallets and its chains:
//   node examples/x402-official-buyer.mjs <key file> <RPC URL> <paid URL> [<network>/<token>]
// A Solana key file (the Solana CLI's JSON array) pays on Solana through the cluster at the RPC URL; an
// EVM key file (`0x` and 64 hex digits) pays on an EVM chain, whose RPC URL is there for reads.
// The official client pays only in tokens it knows (USDC on the chains x402 names) unless told of
// another: the last argument allows one, at most 0.10 of it a payment (the demo's chain's test USDC).
// It prints the answer's status, a space, then its body; it exits 1 when the answer is not 2xx.
/* global fetch */
import { readFileSync } from 'node:fs';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { privateKeyToAccount } from 'viem/accounts';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { toClientEvmSigner } from '@x402/evm';
import { wrapFetchWithPayment } from '@x402/fetch';

const [keyFile, rpcUrl, url, allowed] = process.argv.slice(2);
if (!keyFile || !rpcUrl || !url) {
  console.error('usage: node x402-official-buyer.mjs <key file> <RPC URL> <paid URL> [<network>/<token>]');
  process.exit(2);
}
const key = readFileSync(keyFile, 'utf8').trim();
const scheme = key.startsWith('0x')
  ? { network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(key)), { rpcUrl }) }
  : { network: 'solana:*', client: new ExactSvmScheme(await createKeyPairSignerFromBytes(new Uint8Array(JSON.parse(key))), { rpcUrl }) };
const [network, asset] = allowed?.split('/') ?? [];
const client = x402Client.fromConfig({
  schemes: [scheme],
  ...(network && asset && { spendControls: { allowedAssets: [{ network, asset, maxAmountPerPayment: '100000' }] } }),
});
const response = await wrapFetchWithPayment(fetch, client)(url);
console.log(`${response.status} ${await response.text()}`);
process.exitCode = response.ok ? 0 : 1;
