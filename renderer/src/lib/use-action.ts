import { useState } from 'react';
import type { z } from 'zod';
import { describeIssues } from '../../../server/wire/schemas.js';

/**
 * A button's action against the server: busy while it runs, its error (the server's message) kept
 * for the ErrorNote beside it. `run` answers whether it went through; `submit` first validates a form
 * with the server's own schema, so it is refused here in the server's words.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const submit = async <T>(schema: z.ZodType<T>, input: unknown, action: (body: T) => Promise<unknown>): Promise<boolean> => {
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      setError(describeIssues(parsed.error).message);
      return false;
    }
    return run(() => action(parsed.data));
  };
  return { busy, error, setError, run, submit };
}
