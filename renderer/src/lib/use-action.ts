import { useState } from 'react';
import type { z } from 'zod';
import { fieldProblems } from '../../../server/wire/schemas.js';

/**
 * A button's action against the server: busy while it runs, its error (the server's message) kept
 * for the ErrorNote beside it. `run` answers whether it went through; `submit` first validates a form
 * with the server's own schema, so it is refused here in the server's words: every field that is
 * wrong at once (one a line), and `invalid`, the fields to mark.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setInvalid(new Set());
    try {
      await action();
      return true;
    } catch (e) {
      setError((e as Error).message);
      // A refusal about one field of the form (FieldRefusal) marks it, as a check before sending does.
      if (e instanceof FieldRefusal) setInvalid(new Set([e.field]));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const submit = async <T>(schema: z.ZodType<T>, input: unknown, action: (body: T) => Promise<unknown>): Promise<boolean> => {
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      const problems = fieldProblems(parsed.error);
      setError(Object.values(problems).join('\n'));
      setInvalid(new Set(Object.keys(problems)));
      return false;
    }
    return run(() => action(parsed.data));
  };
  /** The error said (or none), the fields marked by the last check let go with it: a form closed or cleared starts afresh. */
  const sayError = (message: string | null) => {
    setError(message);
    setInvalid(new Set());
  };
  return { busy, error, setError: sayError, invalid, run, submit };
}

/** The server's refusal said in the form's words, about one of its fields (its input's name): useAction marks it. */
export class FieldRefusal extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}
