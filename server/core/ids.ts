import { createHash, randomBytes } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Uint8Array): string {
  let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (value > 0n) {
    out = BASE58[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** Opaque record ids: a prefix and 16 random bytes in base58 ("pay_3xK..."). */
export const newId = (prefix: 'pay' | 'alc' | 'dep' | 'rfd'): string => `${prefix}_${base58(randomBytes(16))}`;

export const OWNER_KEY_PREFIX = 'cof_own_';
export const AGENT_KEY_PREFIX = 'cof_agt_';

/** A new API key: a fixed prefix and 32 random bytes in base58. Shown once; only its hash is kept. */
export const newApiKey = (kind: 'owner' | 'agent'): string =>
  `${kind === 'owner' ? OWNER_KEY_PREFIX : AGENT_KEY_PREFIX}${base58(randomBytes(32))}`;

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export const hashRequest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');
