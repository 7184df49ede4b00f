import { describe, expect, it } from 'vitest';
import { backupStatusText } from '../../../../../server/cli/commands/backup-status.js';
import { BACKUP_FILE as file, backupStatusWith as status } from '../../../../fixtures/backup-status.js';
const headingOf = (over: Parameters<typeof status>[0]) => backupStatusText(status(over)).split('\n')[0];

describe("coffer backup's heading", () => {
  it('says every wallet is lost with the computer only where no backup of any kind exists', () => {
    expect(headingOf({})).toBe("NOT BACKED UP: if this computer is lost, so is every wallet's money.");
  });

  it('says a backup file backs the treasury up in part, not that everything is lost', () => {
    expect(headingOf({ lastFile: file })).toBe(
      'NOT BACKED UP IN FULL: the last backup file holds the wallets of its day; the recovery phrase restores every one, once written down.',
    );
    // A treasury made before recovery phrases: its files are its backup, a wallet made since is in none.
    expect(headingOf({ recoveryPhrase: 'none', lastFile: file })).toBe(
      'NOT BACKED UP IN FULL: a wallet made since the last backup file is in none.',
    );
  });

  it('says a file lacking a wallet key lacks it, not that a wallet is newer than the file', () => {
    const lacking = { ...file, walletsWithoutKey: ['9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'] };
    const text = backupStatusText(status({ recoveryPhrase: 'none', lastFile: lacking }));
    expect(text.split('\n')[0]).toBe('NOT BACKED UP IN FULL: the last backup file lacks the key of a wallet named below.');
    // Said of the file, which it stays true of: the key store may have the key again by now (helper
    // 200: "has no key in this key store: its money is in no backup file", after the key came back).
    expect(text).toContain(
      'warning: the last backup file holds no key for wallet 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin: its money is not in that file',
    );
    // A wallet's Base account named as one: its 0x address alone read as some unknown wallet.
    const base = { ...file, walletsWithoutKey: ['0x5aB4d04C6FDc4b6BF2b3f5B4E0E6A2a2c8F715b5'] };
    expect(backupStatusText(status({ recoveryPhrase: 'none', lastFile: base }))).toContain(
      'warning: the last backup file holds no key for the Base account 0x5aB4d04C6FDc4b6BF2b3f5B4E0E6A2a2c8F715b5: its money is not in that file',
    );
  });

  it('on sim, says the phrase restores no test money and a file is the backup', () => {
    const written = { recoveryPhrase: 'confirmed' as const, confirmedAt: '2026-11-29T10:00:00.000Z', phraseRestores: false };
    const text = backupStatusText(status(written));
    expect(text.split('\n')[0]).toBe("NOT BACKED UP: if this computer is lost, so is every wallet's money.");
    expect(text).toMatch(/recovery phrase +written down \(checked .+\); on sim it brings back no test money: a backup file does\n/);
    expect(backupStatusText(status({}))).toMatch(/recovery phrase +not written down yet: .*backup phrase\n/);
    expect(backupStatusText(status({ phraseRestores: false }))).toContain(
      'not written down (on sim it brings back no test money: a backup file does)\n',
    );
    expect(headingOf({ ...written, lastFile: file })).toBe('NOT BACKED UP IN FULL: a wallet made since the last backup file is in none.');
    expect(headingOf({ ...written, lastFile: file, backedUp: true })).toBe('Backed up.');
  });

  it('says backed up where the rule every door follows says so', () => {
    expect(headingOf({ recoveryPhrase: 'confirmed', confirmedAt: '2026-11-29T10:00:00.000Z', backedUp: true })).toBe('Backed up.');
    expect(headingOf({ recoveryPhrase: 'none', lastFile: file, backedUp: true })).toBe('Backed up.');
  });
});
