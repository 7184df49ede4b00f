/**
 * The EVM signing thread's worker (evm-signing-thread.ts): it holds the EVM keys the serving thread
 * hands it and signs with viem's accounts, so a payment's three secp256k1 signatures never take the
 * thread that serves /v1.
 */
import { parentPort } from 'node:worker_threads';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { signWith, type FromSigningWorker, type ToSigningWorker } from './evm-signing-messages.js';

const accounts = new Map<string, PrivateKeyAccount>();
const port = parentPort!;

port.on('message', (message: ToSigningWorker) => {
  if (message.kind === 'key') {
    const account = privateKeyToAccount(message.key);
    accounts.set(account.address, account);
    return;
  }
  const { kind: _kind, id, address, ...request } = message;
  const answer = (reply: FromSigningWorker) => port.postMessage(reply);
  const account = accounts.get(address);
  if (account === undefined) {
    answer({ kind: 'failed', id, message: `no key for ${address} on the signing thread` });
    return;
  }
  signWith(account, request).then(
    (signature) => answer({ kind: 'signed', id, signature }),
    (error: Error) => answer({ kind: 'failed', id, message: error.message }),
  );
});
