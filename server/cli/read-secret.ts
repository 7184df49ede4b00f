import { read } from 'read';

export interface SecretIo {
  input: NodeJS.ReadableStream;
  /** Where the prompt goes: stderr, so stdout stays the command's answer. */
  out: NodeJS.WritableStream;
}

export const processIo: SecretIo = { input: process.stdin, out: process.stderr };

/**
 * A secret (a passphrase, a recovery phrase) typed at a terminal without echoing it (npm's `read`);
 * from a pipe, its next line, for scripts (`printf '%s\n' "$PASS" | coffer backup --out FILE`). Null
 * when input ends first or the person presses Ctrl-C.
 */
export async function readSecret(prompt: string, io: SecretIo = processIo): Promise<string | null> {
  let ended = () => undefined as void;
  const inputEnds = new Promise<null>((resolve) => {
    ended = () => resolve(null);
    io.input.once('end', ended);
  });
  try {
    const typed = read({ prompt, silent: true, replace: '', input: io.input, output: io.out }).catch(() => null);
    return await Promise.race([typed, inputEnds]);
  } finally {
    io.input.removeListener('end', ended);
  }
}
