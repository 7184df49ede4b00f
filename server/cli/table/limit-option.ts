import { UsageError } from '../command-line.js';

/** `--limit N`: a whole number from 1 to `max` (the API's own most, server/wire/limits.ts), before Coffer is asked. */
export function limitOption(value: string | undefined, max: number, command: string): number | undefined {
  if (value === undefined) return undefined;
  const limit = Number(value);
  if (/^\d+$/.test(value) && limit >= 1 && limit <= max) return limit;
  throw new UsageError(`--limit is a whole number from 1 to ${max}, not "${value}"`, command);
}
