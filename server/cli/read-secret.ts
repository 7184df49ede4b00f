import { read } from 'read';

export interface SecretIo {
  input: NodeJS.ReadableStream;
  /** Where the prompt goes: stderr, so stdout stays the command's answer. */
  out: NodeJS.WritableStream;
}

export const processIo: SecretIo = { input: process.stdin, out: process.stderr };

/**
 * A secret (a passphrase, a recovery phrase) typed at a terminal without echoing it (npm's `read`);
 * from a pipe, its next line, with its final newline or without, for scripts (`printf '%s' "$PASS" |
 * coffer backup --out FILE`). Null when input ends first or the person presses Ctrl-C.
 */
export async function readSecret(prompt: string, io: SecretIo = processIo): Promise<string | null> {
  let ended = () => undefined as void;
  const inputEnds = new Promise<null>((resolve) => {
    // Input that ends without a final newline still holds its last line: readline gives it on that same
    // 'end', so "no secret" is said only once that turn has passed (printf '%s' "$PASS" | coffer ...).
    ended = () => void setImmediate(() => resolve(null));
    io.input.once('end', ended);
  });
  try {
    const typed = read({ prompt, silent: true, replace: '', input: io.input, output: io.out }).catch(() => null);
    const secret = await Promise.race([typed, inputEnds]);
    // From a pipe nothing echoes the newline that ends the secret: the prompt's line is ended here, so
    // what is said next starts a line of its own.
    if (!(io.input as { isTTY?: boolean }).isTTY) io.out.write('\n');
    return secret;
  } finally {
    io.input.removeListener('end', ended);
  }
}
