import { randomInt } from 'node:crypto';
import { actorOf, FRESH_FOR, requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { audit, type ContextWith, type EngineContext } from '../context.js';
import { CofferError } from '../../wire/errors.js';
import { recoveryPhraseSecret } from '../ports/keys.js';
import type { PhraseConfirmBody } from '../../wire/schemas.js';
import type { AgentStore, MetaStore } from '../ports/store.js';
import { iso } from '../../wire/views.js';
import { lastBackupFile, lastFileHoldsEveryWallet } from './files.js';
import { scheduleView } from './schedule.js';
import { phraseMadeMeta } from '../treasury/treasury.js';
import type { BackupStatus, RecoveryPhrase } from '../../wire/answers/backup.js';

/** How many words the owner types back to show the phrase was written down. */
const WORDS_TO_CONFIRM = 3;
/** When the owner typed back the asked words. */
const phraseConfirmedMeta = (owner: string) => `backup.phrase_confirmed_at:${owner}`;
/** Which words the last reveal asked for (1-based positions). */
const positionsMeta = (owner: string) => `backup.confirm_positions:${owner}`;

/**
 * Where the owner stands with backups. The recovery phrase: `none` (a treasury made before phrases:
 * its backup is the encrypted file), `not_confirmed`, or `confirmed`; the last backup file written.
 * `backedUp` is the one rule the tray and the dashboard follow to say "not backed up": the phrase
 * written down, or, where no phrase brings the treasury back (one made before phrases; sim, whose test
 * money lives in the data dir and is found on no chain a phrase can search), a backup file holding
 * every wallet it has now. Read from the ledger only: no keychain read on every dashboard refresh.
 */
export function backupStatus(ctx: EngineContext, principal: Principal): BackupStatus {
  requireOwner(principal);
  return statusOf(ctx, principal.owner);
}

export function statusOf(ctx: ContextWith<MetaStore & AgentStore>, owner: string): BackupStatus {
  const confirmedAt = ctx.store.getMeta(phraseConfirmedMeta(owner));
  const recoveryPhrase =
    ctx.store.getMeta(phraseMadeMeta(owner)) === null
      ? ('none' as const)
      : confirmedAt === null
        ? ('not_confirmed' as const)
        : ('confirmed' as const);
  const phraseRestores = !ctx.chain.isSim;
  const backedUp = phraseRestores
    ? recoveryPhrase === 'confirmed' || (recoveryPhrase === 'none' && lastFileHoldsEveryWallet(ctx, owner))
    : lastFileHoldsEveryWallet(ctx, owner);
  return {
    recoveryPhrase,
    confirmedAt: confirmedAt === null ? null : iso(Number(confirmedAt)),
    lastFile: lastBackupFile(ctx, owner),
    schedule: scheduleView(ctx, owner),
    backedUp,
    phraseRestores,
  };
}

/**
 * Shows the owner the recovery phrase, and picks the words to type back. Owner only, and from a
 * dashboard session only within ten minutes of signing in: whoever reads the phrase holds every
 * wallet on any computer. Audited without the phrase.
 *
 * Security invariant: the phrase leaves the key store only in this answer, to the owner; it is never
 * logged, audited, announced on the event stream, or given to an agent or MCP.
 */
export async function revealRecoveryPhrase(ctx: EngineContext, principal: Principal): Promise<RecoveryPhrase> {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.phrase);
  const { owner } = principal;
  const phrase = ctx.store.getMeta(phraseMadeMeta(owner)) === null ? null : await ctx.vault.getSecret(recoveryPhraseSecret(owner));
  if (phrase === null) {
    throw new CofferError(
      'no_recovery_phrase',
      'this treasury was made before recovery phrases: its wallets are backed up with an encrypted backup file instead',
    );
  }
  const words = phrase.split(' ');
  const confirm = pickPositions(words.length);
  ctx.store.transaction(() => {
    ctx.store.setMeta(positionsMeta(owner), JSON.stringify(confirm));
    audit(ctx, { actor: actorOf(principal), owner, action: 'backup.phrase_shown', detail: { words: words.length } });
  });
  return { words, confirm };
}

/**
 * The owner types back the words the last reveal asked for: right, the phrase is backed up (the
 * "not backed up" notices go); wrong, nothing changes and the same words are asked again.
 */
export async function confirmRecoveryPhrase(ctx: EngineContext, principal: Principal, body: PhraseConfirmBody): Promise<BackupStatus> {
  requireOwner(principal);
  const { owner } = principal;
  const positions = askedPositions(ctx, owner);
  const phrase = positions === null ? null : await ctx.vault.getSecret(recoveryPhraseSecret(owner));
  if (positions === null || phrase === null) {
    throw new CofferError('phrase_not_shown', 'show the recovery phrase first: it asks for some of its words');
  }
  const words = phrase.split(' ');
  const typed = new Map(body.words.map((entry) => [entry.position, entry.word.trim().toLowerCase()]));
  if (typed.size !== positions.length || !positions.every((position) => typed.get(position) === words[position - 1])) {
    throw new CofferError('phrase_mismatch', `those are not the words at positions ${positions.join(', ')} of the recovery phrase`);
  }
  ctx.store.transaction(() => {
    markPhraseConfirmed(ctx, owner);
    audit(ctx, { actor: actorOf(principal), owner, action: 'backup.phrase_confirmed' });
  });
  ctx.events.emit({ type: 'backup', owner, recoveryPhrase: 'confirmed' });
  return statusOf(ctx, owner);
}

/** The phrase is written down: the owner typed back its words, or typed it whole to restore the treasury. */
export function markPhraseConfirmed(ctx: ContextWith<MetaStore>, owner: string): void {
  ctx.store.setMeta(phraseConfirmedMeta(owner), String(ctx.clock.now()));
  ctx.store.setMeta(positionsMeta(owner), '');
}

/** The positions the last reveal asked for, or null when none is waiting to be confirmed. */
function askedPositions(ctx: EngineContext, owner: string): number[] | null {
  const asked = ctx.store.getMeta(positionsMeta(owner));
  return asked === null || asked === '' ? null : (JSON.parse(asked) as number[]);
}

/** `count` distinct positions out of 1..length, in order. */
function pickPositions(length: number): number[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(WORDS_TO_CONFIRM, length)) picked.add(randomInt(1, length + 1));
  return [...picked].sort((a, b) => a - b);
}
