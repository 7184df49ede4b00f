import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';

/** Opaque record ids: a prefix and 16 random bytes in base58 ("pay_3xK..."). */
export const newId = (prefix: 'pay' | 'alc' | 'dep' | 'rfd'): string => `${prefix}_${bs58.encode(randomBytes(16))}`;

export const OWNER_KEY_PREFIX = 'cof_own_';
export const AGENT_KEY_PREFIX = 'cof_agt_';

/** A new API key: a fixed prefix and 32 random bytes in base58. Shown once; only its hash is kept. */
export const newApiKey = (kind: 'owner' | 'agent'): string =>
  `${kind === 'owner' ? OWNER_KEY_PREFIX : AGENT_KEY_PREFIX}${bs58.encode(randomBytes(32))}`;

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

export const hashRequest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');
