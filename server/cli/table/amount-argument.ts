import { amountSchema } from '../../wire/schemas.js';
import { UsageError } from '../command-line.js';
import { AMOUNT_RULE } from '../policy-flags.js';

/**
 * An amount typed as a command's argument (`coffer allocate alice 1.50`), checked by the wire's own
 * rule before any Coffer is asked: a bad one is a usage error (exit 2) that quotes what was typed,
 * as a flag's is (policy-flags.ts amountOf), and a swapped order (`pay 0.01 demo-weather`: the
 * argument before it, `before`, an amount) says how the command takes them.
 */
export function amountArgument(text: string, command: string, form: string, before?: string): string {
  const amount = text.trim();
  if (amountSchema.safeParse(amount).success) return amount;
  const swapped = before === undefined || amountSchema.safeParse(before.trim()).success;
  throw new UsageError(
    `"${text}" is not an amount: ${AMOUNT_RULE}, such as 0.01${swapped ? `; coffer ${command} takes ${form}` : ''}`,
    command,
  );
}

/** An amount given with a flag (`--daily 5`), checked as amountArgument checks one: a usage error quoting it. */
export function amountFlag(flag: string, text: string, command: string): string {
  const amount = text.trim();
  if (amountSchema.safeParse(amount).success) return amount;
  throw new UsageError(`--${flag} ${text}: ${AMOUNT_RULE}, such as 5 or 0.50`, command);
}
