import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { INPUT_REFUSED, refusedWithCode } from '../../../../server/mcp/coded-input.js';

describe('a tool input schema refused with its code', () => {
  const schema = z.object({ amount: z.string().regex(/^\d+(\.\d+)?$/, 'must be an amount'), note: z.string().default('none') });
  const coded = refusedWithCode(schema);

  it("adds the code to the last issue alone, each said in /v1's words (the field's label, not zod's)", async () => {
    const result = await coded['~standard'].validate({ amount: 5, note: 7 });
    expect(result.issues?.map((issue) => issue.message)).toEqual(['Amount must be text', `note must be text (${INPUT_REFUSED})`]);
    // The words name the field: no path for the SDK to name it again before them (helper 174).
    expect(result.issues?.map((issue) => issue.path)).toEqual([undefined, undefined]);
  });

  it('answers a valid input as the schema parses it (defaults applied), untouched', async () => {
    expect(await coded['~standard'].validate({ amount: '0.01' })).toEqual({ value: { amount: '0.01', note: 'none' } });
  });

  it('shows a host the schema’s own JSON Schema', () => {
    const io = { target: 'draft-2020-12' } as const;
    expect(coded['~standard'].jsonSchema.input(io)).toEqual(schema['~standard'].jsonSchema.input(io));
  });

  it('codes an asynchronous validation too', async () => {
    const later = refusedWithCode({
      '~standard': {
        ...schema['~standard'],
        validate: async () => ({ issues: [{ message: 'no' }] }),
      },
    });
    const answered = later['~standard'].validate({});
    expect(answered).toBeInstanceOf(Promise);
    expect(await answered).toEqual({ issues: [{ message: `no (${INPUT_REFUSED})` }] });
  });
});
