import { tryParseUsdc } from '../lib/money.js';
import { Money } from './Money.js';

/**
 * What of a sum spent waits for the owner's yes: a held payment counts against the budgets from the
 * moment it is held, but nothing was paid, and nothing will be unless the owner approves it. Said
 * beside "spent", in brackets (a part of it), so that figure is not read as paid. Nothing where none
 * waits (or from an older Coffer that does not say).
 */
export function HeldNote({ held }: { held: string | undefined }) {
  if ((tryParseUsdc(held ?? '0') ?? 0n) <= 0n) return null;
  return (
    <span className="muted held-note" data-testid="held-note">
      (<Money value={held} /> of it held for your yes, not paid)
    </span>
  );
}
