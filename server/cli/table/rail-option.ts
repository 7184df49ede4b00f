import { UsageError } from '../command-line.js';
import { isRail, type Rail } from '../../wire/rails.js';

/**
 * `--rail`: `sol` or `base`. Left out, the command chooses as its door does: `pay` by the recipient's
 * address, `fetch` by the owner's preferred rail or the funds, a move of the owner's on Solana.
 */
export function railOption(rail: string | undefined, command: string): Rail | undefined {
  if (rail === undefined || isRail(rail)) return rail;
  throw new UsageError(`--rail is sol or base, not "${rail}"`, command);
}

/** `--preferred-rail`: `sol`, `base`, or `none` (none preferred again); anything else is a usage error, before Coffer is asked. */
export function preferredRailOption(rail: string | undefined, command: string): Rail | 'none' | undefined {
  if (rail === undefined || rail === 'none' || isRail(rail)) return rail;
  throw new UsageError(`--preferred-rail is sol, base or none, not "${rail}"`, command);
}
