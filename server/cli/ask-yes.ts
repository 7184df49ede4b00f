/** A yes-or-no question at a terminal: "Save it? [y/N] ", answered with a line. */
import { createInterface } from 'node:readline/promises';

/** Whether this process can ask: its input and the stream the question goes to are both a terminal. */
export const canAsk = (input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): boolean =>
  input.isTTY === true && output.isTTY === true;

/**
 * Asks `question` and reads one line: yes only for "y" or "yes" (any case), so that Enter, anything
 * else or the input ending (Ctrl-D) is a no.
 */
export async function askYes(
  question: string,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<boolean> {
  const lines = createInterface({ input, output, terminal: false });
  try {
    const ended = new Promise<string>((resolve) => lines.once('close', () => resolve('')));
    const answer = await Promise.race([lines.question(question), ended]);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    lines.close();
  }
}
