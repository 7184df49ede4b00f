import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSecret } from '../../../../server/cli/read-secret.js';

/** readSecret from a pipe, as a script feeds it (`printf '%s' "$PASS" | coffer backup --out FILE`). */
function piped(text: string) {
  const input = new PassThrough();
  const out = new PassThrough();
  let prompted = '';
  out.on('data', (chunk) => (prompted += chunk));
  input.end(text);
  return { io: { input, out }, prompted: () => prompted };
}

describe('readSecret from a pipe', () => {
  it('reads its line, with or without the final newline', async () => {
    expect(await readSecret('Passphrase: ', piped('correct horse battery\n').io)).toBe('correct horse battery');
    expect(await readSecret('Passphrase: ', piped('correct horse battery').io)).toBe('correct horse battery');
    expect(await readSecret('Passphrase: ', piped('first line\nsecond line').io)).toBe('first line');
  });

  it('is null when the pipe ends with nothing in it, after the prompt (on the prompt stream, never the secret)', async () => {
    const { io, prompted } = piped('');
    expect(await readSecret('Passphrase: ', io)).toBeNull();
    expect(prompted()).toContain('Passphrase:');
  });
});
