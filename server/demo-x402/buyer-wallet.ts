import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { z } from 'zod';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/** A key file as the Solana CLI writes one: the 32-byte seed, then the 32-byte public key, as a JSON array. */
const keyFileSchema = z.array(z.number().int().min(0).max(255)).length(64);

/**
 * The demo's buyer wallet, for any x402 client (the official `@x402/fetch` in docs/X402.md): a key of
 * test money, kept in the demo's folder at 0600 in the Solana CLI's format so any Solana tool reads
 * it, made on the first run. Answers its address.
 */
export async function buyerWallet(file: string): Promise<string> {
  if (!existsSync(file)) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
    const key = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    writeFileSync(file, `${JSON.stringify([...seed, ...key])}\n`, { mode: 0o600, flag: 'wx' });
  }
  const bytes = keyFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const signer = await createKeyPairSignerFromBytes(new Uint8Array(bytes));
  return signer.address;
}

/** An EVM private key file: `0x` and 64 hex digits, the form `cast`, viem and most wallets import. */
const evmKeySchema = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{64}$/);

/**
 * The demo's buyer account on its EVM chain, for the official `@x402/fetch` with `@x402/evm`: a
 * private key of test money in the demo's folder at 0600, made on the first run.
 */
export function evmBuyerWallet(file: string): Address {
  if (!existsSync(file)) writeFileSync(file, `${generatePrivateKey()}\n`, { mode: 0o600, flag: 'wx' });
  const key = evmKeySchema.parse(readFileSync(file, 'utf8')) as Hex;
  return privateKeyToAccount(key).address;
}
