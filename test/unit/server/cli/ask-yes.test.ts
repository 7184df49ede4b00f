import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askYes, canAsk } from '../../../../server/cli/ask-yes.js';

/** Asks with `typed` as what the terminal sends; what the question wrote, and the answer. */
async function asked(typed: string | null) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const answer = askYes('Save it? [y/N] ', input, output);
  if (typed === null) input.end();
  else input.write(typed);
  return { answer: await answer, written };
}

describe('askYes', () => {
  it('is yes only for y or yes, in any case', async () => {
    for (const typed of ['y\n', 'Y\n', 'yes\n', ' YES \n']) expect((await asked(typed)).answer, typed).toBe(true);
    for (const typed of ['\n', 'n\n', 'no\n', 'yep\n', 'sure\n']) expect((await asked(typed)).answer, typed).toBe(false);
  });

  it('writes the question, and takes the input ending (Ctrl-D) as a no', async () => {
    const { answer, written } = await asked(null);
    expect(written).toBe('Save it? [y/N] ');
    expect(answer).toBe(false);
  });

  it('asks only where its input and output are both a terminal', () => {
    const tty = (isTTY: boolean) => ({ isTTY }) as unknown as NodeJS.ReadStream & NodeJS.WriteStream;
    expect(canAsk(tty(true), tty(true))).toBe(true);
    expect(canAsk(tty(false), tty(true))).toBe(false);
    expect(canAsk(tty(true), tty(false))).toBe(false);
  });
});
