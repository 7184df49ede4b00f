import { mkdirSync, readFileSync, writeFileSync, rmSync, chmodSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretBackend } from './secret-backend.js';

/**
 * Secrets as files under DIR/keys, each 0600 in a 0700 folder: the fallback for machines where no
 * keychain answers. Written to a temporary name and renamed, so a crash never leaves half a key.
 */
export function createFileBackend(keysDir: string): SecretBackend {
  mkdirSync(keysDir, { recursive: true, mode: 0o700 });
  chmodSync(keysDir, 0o700);
  const fileOf = (account: string) => {
    if (!/^[A-Za-z0-9:_-]{1,128}$/.test(account)) throw new Error('invalid secret name');
    return join(keysDir, `${account.replaceAll(':', '_')}.key`);
  };
  return {
    kind: 'file',
    get: async (account) => {
      try {
        return readFileSync(fileOf(account), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    set: async (account, secret) => {
      const file = fileOf(account);
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, secret, { mode: 0o600 });
      renameSync(temporary, file);
    },
    delete: async (account) => {
      try {
        rmSync(fileOf(account));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    },
  };
}
