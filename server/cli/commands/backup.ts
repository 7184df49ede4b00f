import { createInterface } from 'node:readline/promises';
import { keyClient } from '../../client/coffer-client.js';
import { readOwnerConnection } from '../owner-connection.js';

type Out = NodeJS.WritableStream;

/**
 * `coffer backup phrase`: shows the treasury's recovery phrase (owner key, from this machine's data
 * dir) and asks for three of its words back, so the treasury counts as backed up only once the
 * phrase was written down. The phrase goes to this terminal only.
 */
export async function backupPhrase(
  args: { dataDir?: string },
  io: { input: NodeJS.ReadableStream; out: Out } = { input: process.stdin, out: process.stdout },
): Promise<number> {
  const { out } = io;
  const owner = readOwnerConnection(args.dataDir);
  const api = keyClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  const { words, confirm } = await api.revealRecoveryPhrase();
  out.write('Your recovery phrase. Write these words down, in order, on paper; keep it where you keep what matters.\n');
  out.write('Anyone who reads them holds every wallet of this treasury, on any computer. Coffer never asks for them.\n\n');
  for (let row = 0; row < words.length; row += 4) {
    out.write(
      `${words
        .slice(row, row + 4)
        .map((word, i) => `${String(row + i + 1).padStart(2)}. ${word.padEnd(10)}`)
        .join('  ')}\n`,
    );
  }
  out.write(`\nTo check, type words ${confirm.map((position) => `#${position}`).join(', ')}.\n`);
  const prompt = createInterface({ input: io.input, output: out, terminal: false });
  const typed: { position: number; word: string }[] = [];
  try {
    for (const position of confirm) {
      out.write(`Word #${position}: `);
      const line = await nextLine(prompt);
      if (line === null) {
        out.write('\nNot confirmed: the treasury is still "not backed up". Run coffer backup phrase again.\n');
        return 1;
      }
      typed.push({ position, word: line.trim() });
    }
  } finally {
    prompt.close();
  }
  const answer = await api.confirmRecoveryPhrase({ words: typed }).catch((error: { code?: string }) => {
    if (error.code === 'phrase_mismatch') return null;
    throw error;
  });
  if (answer === null) {
    out.write('Those words do not match the phrase: nothing changed. Run coffer backup phrase again.\n');
    return 1;
  }
  out.write('Backed up: the phrase restores this treasury and every agent wallet, here or in Phantom or Solflare.\n');
  return 0;
}

/** The next line typed, or null when input ends first. */
function nextLine(prompt: ReturnType<typeof createInterface>): Promise<string | null> {
  return new Promise((resolve) => {
    const onClose = () => resolve(null);
    prompt.once('close', onClose);
    prompt.once('line', (line) => {
      prompt.off('close', onClose);
      resolve(line);
    });
  });
}
