import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { seedOfPhrase, walletKeyAt } from '../../server/keys/recovery-phrase.js';
import { deployAgent, manualClock, signIn, tempDataDir } from '../helpers/coffer.js';
import { CLI, runCoffer, spawnServe } from '../helpers/serve-process.js';
import { shellCommand } from '../../server/boot/cli-invocation.js';
import { useCoffer } from '../helpers/server-fixture.js';

/**
 * Issue 23, point 2: the owner sees the recovery phrase (owner only, a fresh sign-in), types back a
 * few of its words, and until then Coffer says "not backed up". The phrase reaches no one else.
 */
describe('the recovery phrase, shown and confirmed', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });
  const reveal = (key?: string) => t.api('POST', t.withOwner('/v1/backup/phrase'), key === undefined ? {} : { key });
  const confirm = (body: unknown, key?: string) =>
    t.api('POST', t.withOwner('/v1/backup/phrase/confirm'), key === undefined ? { body } : { body, key });
  const status = async () => (await t.api('GET', t.withOwner('/v1/backup'))).body;

  it('is the phrase of this treasury, shown to the owner only, from a fresh sign-in; typed back, the treasury is backed up', async () => {
    // On sim (this Coffer's network) the phrase brings back no test money: it lives in the data dir.
    const notConfirmed = {
      recoveryPhrase: 'not_confirmed',
      confirmedAt: null,
      lastFile: null,
      schedule: null,
      backedUp: false,
      phraseRestores: false,
    };
    expect(await status()).toEqual(notConfirmed);
    expect((await t.api('GET', t.withOwner('/v1/dashboard'))).body.backup).toEqual(notConfirmed);

    const agent = await deployAgent(t, 'curious');
    for (const answer of [
      await reveal(agent.apiKey),
      await confirm({ words: [{ position: 1, word: 'x' }] }, agent.apiKey),
      await t.api('GET', t.withOwner('/v1/backup'), { key: agent.apiKey }),
    ]) {
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 403, code: 'owner_only' });
    }
    const stale = await signIn(t);
    clock.advance(10 * 60 * 1000 + 1);
    const late = await reveal(stale);
    expect({ status: late.status, code: late.body.code }).toEqual({ status: 403, code: 'confirmation_required' });
    expect(late.body.error).toMatch(/recovery phrase/);

    const shown = await reveal(await signIn(t));
    expect(shown.status).toBe(200);
    const words = shown.body.words as string[];
    expect(words).toHaveLength(24);
    const treasury = await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(await seedOfPhrase(words.join(' ')), 0));
    expect(treasury.address).toBe(t.owner);
    const positions = shown.body.confirm as number[];
    expect(positions).toHaveLength(3);
    expect(new Set(positions).size).toBe(3);

    // Wrong words change nothing, and the same words are asked again.
    const wrong = await confirm({
      words: positions.map((position) => ({
        position,
        word: words[position % 24]! === words[position - 1] ? 'zoo' : words[position % 24]!,
      })),
    });
    expect({ status: wrong.status, code: wrong.body.code }).toEqual({ status: 400, code: 'phrase_mismatch' });
    expect((await status()).recoveryPhrase).toBe('not_confirmed');
    const partial = await confirm({ words: [{ position: positions[0], word: words[positions[0]! - 1] }] });
    expect(partial.body.code).toBe('phrase_mismatch');
    for (const bad of [
      {},
      { words: 'all of them' },
      { words: [{ position: 0, word: 'x' }] },
      { words: [{ position: 1, word: 'x' }], extra: 1 },
    ]) {
      expect((await confirm(bad)).body.code).toBe('invalid_request');
    }

    const right = await confirm({ words: positions.map((position) => ({ position, word: ` ${words[position - 1]!.toUpperCase()} ` })) });
    expect(right.status).toBe(200);
    expect(right.body).toEqual({
      recoveryPhrase: 'confirmed',
      confirmedAt: new Date(clock.now()).toISOString(),
      lastFile: null,
      schedule: null,
      backedUp: false,
      phraseRestores: false,
    });
    expect((await status()).recoveryPhrase).toBe('confirmed');

    expect((await confirm({ words: [{ position: 1, word: words[0] }] })).body.code).toBe('phrase_not_shown');

    // Audited without the phrase; the phrase is in no row of the ledger.
    const actions = t.coffer.db.prepare("SELECT action, detail FROM audit_log WHERE action LIKE 'backup.%' ORDER BY id").all() as {
      action: string;
      detail: string;
    }[];
    expect(actions.map((row) => row.action)).toEqual(['backup.phrase_shown', 'backup.phrase_confirmed']);
    t.coffer.db.pragma('wal_checkpoint(TRUNCATE)');
    const dump =
      JSON.stringify(t.coffer.db.prepare('SELECT * FROM meta').all()) +
      JSON.stringify(t.coffer.db.prepare('SELECT * FROM audit_log').all());
    expect(dump.includes(words.slice(0, 4).join(' '))).toBe(false);

    // What brings a sim treasury back is a backup file holding every wallet.
    const file = await t.api('POST', t.withOwner('/v1/backup/file'), { body: { passphrase: 'a passphrase of some length' } });
    expect(file.status).toBe(200);
    expect(await status()).toMatchObject({ recoveryPhrase: 'confirmed', backedUp: true, phraseRestores: false });
  });

  it('a treasury made before recovery phrases says so, is offered no phrase, and is backed up by a file holding every wallet it has', async () => {
    t.coffer.db.prepare("DELETE FROM meta WHERE key LIKE 'backup.%'").run();
    expect(await status()).toEqual({
      recoveryPhrase: 'none',
      confirmedAt: null,
      lastFile: null,
      schedule: null,
      backedUp: false,
      phraseRestores: false,
    });
    const none = await reveal();
    expect({ status: none.status, code: none.body.code }).toEqual({ status: 409, code: 'no_recovery_phrase' });
    expect((await t.api('POST', t.withOwner('/v1/backup/phrase'), { body: { show: true } })).body.code).toBe('invalid_request');

    clock.advance(1000);
    const file = await t.api('POST', t.withOwner('/v1/backup/file'), { body: { passphrase: 'a passphrase of some length' } });
    expect(file.status).toBe(200);
    expect(await status()).toMatchObject({ recoveryPhrase: 'none', lastFile: { at: new Date(clock.now()).toISOString() }, backedUp: true });
    expect((await t.api('GET', t.withOwner('/v1/dashboard'))).body.backup.backedUp).toBe(true);
    // An agent deployed since (its key random, without a phrase) is in no file: not backed up again.
    clock.advance(1000);
    await deployAgent(t, 'after-the-file');
    expect((await status()).backedUp).toBe(false);
  });
});

describe('coffer backup phrase', () => {
  /** Runs the command as a terminal would, answering each "Word #N:" with what `answer` gives ('': nothing more). */
  async function backupPhrase(dataDir: string, answer: (words: string[], position: number, shown: string) => string | null) {
    const child = spawn(process.execPath, [CLI, 'backup', 'phrase', '--data-dir', dataDir], {
      env: { ...process.env, COFFER_NO_BROWSER: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let asked = 0;
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      const prompts = [...stdout.matchAll(/Word #(\d+): /g)];
      while (asked < prompts.length) {
        const words = [...stdout.matchAll(/\d+\. (\S+)/g)].map((match) => match[1]!);
        const reply = answer(words, Number(prompts[asked]![1]), stdout);
        asked += 1;
        if (reply === null) child.stdin!.end();
        else if (reply !== '') child.stdin!.write(`${reply}\n`);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, stdout, stderr };
  }

  it('shows the phrase in the terminal, asks for three of its words, and backs the treasury up only when they match', async () => {
    const dataDir = tempDataDir();
    const serve = await spawnServe(dataDir);
    try {
      const wrong = await backupPhrase(dataDir, () => 'zoo');
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/^coffer: those words do not match the phrase: nothing changed; run .* again \(phrase_mismatch\)\n$/);
      const words = [...wrong.stdout.matchAll(/\d+\. (\S+)/g)].map((match) => match[1]!);
      expect(words).toHaveLength(24);
      const { owner } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { owner: string };
      expect((await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(await seedOfPhrase(words.join(' ')), 0))).address).toBe(owner);

      const quit = await backupPhrase(dataDir, () => null);
      expect(quit.code).toBe(1);
      expect(quit.stderr).toMatch(/^coffer: not confirmed: the recovery phrase is not marked as written down; run/);

      // Where the backups stand, as the dashboard's Back up page says it.
      const before = await runCoffer(['backup', '--data-dir', dataDir]);
      expect(before.stdout).toMatch(
        /^NOT BACKED UP: if this computer is lost, so is every wallet's money\.\n {2}recovery phrase +not written down \(on sim it brings back no test money: a backup file does\)\n/m,
      );
      // Each next command typed as printed asks this Coffer: its --data-dir named.
      expect(before.stdout).toContain(`none written here: ${shellCommand(['backup', '--out', 'FILE', '--data-dir', dataDir])}\n`);
      expect(before.stdout).toContain(`off: ${shellCommand(['backup', 'schedule', '--folder', 'DIR', '--data-dir', dataDir])}\n`);
      // More words on the line than asked (the whole phrase pasted): none taken, nothing changed.
      const pasted = await backupPhrase(dataDir, (shown) => shown.join(' '));
      expect(pasted.code).toBe(1);
      expect(pasted.stderr).toMatch(
        new RegExp(
          `coffer: not confirmed: more words came than the 3 asked \\(#\\d+, #\\d+, #\\d+\\); nothing changed; run ${shellCommand(['backup', 'phrase', '--data-dir', dataDir]).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} again\n`,
        ),
      );
      expect((await runCoffer(['backup', '--data-dir', dataDir])).stdout).toMatch(/^NOT BACKED UP/m);
      // The three words come in one piece, on one line (typed or pasted so, after a line left blank,
      // which asks again) or a line each (piped at once): each is read, none lost.
      for (const between of [' ', '\n']) {
        let sent = false;
        const right = await backupPhrase(dataDir, (shown, _position, said) => {
          if (sent) return '';
          sent = true;
          const positions = /type words #(\d+), #(\d+), #(\d+)/.exec(said)!.slice(1).map(Number);
          return `  \n${positions.map((at) => shown[at - 1]!).join(between)}`;
        });
        expect(right.code, right.stdout).toBe(0);
        // Piped, each prompt is a line of its own: the blank line asked again below the first, not beside it.
        expect(right.stdout).toMatch(/\nWord #(\d+): \nWord #\1: \n/);
        // On sim (this serve's network), the words say what a phrase brings back there: no test money.
        expect(right.stdout).toContain(
          `Written down. On sim, the test money lives in this data dir, which no phrase brings back: back it up with ${shellCommand(['backup', '--out', 'FILE', '--data-dir', dataDir])}\n`,
        );
      }
      const after = await runCoffer(['backup', '--data-dir', dataDir]);
      expect(after.stdout).toMatch(
        /^NOT BACKED UP: .*\n {2}recovery phrase +written down \(checked .+\); on sim it brings back no test money/m,
      );
      expect(JSON.parse((await runCoffer(['backup', '--data-dir', dataDir, '--json'])).stdout)).toMatchObject({
        recoveryPhrase: 'confirmed',
        backedUp: false,
        phraseRestores: false,
      });
      // Nothing of the phrase reached the server's own output.
      expect([...serve.lines, ...serve.stderr].join('\n').includes(words.slice(0, 3).join(' '))).toBe(false);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
