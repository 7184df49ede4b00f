import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { describeIssues } from '../wire/schemas.js';

/** The code an input that does not fit a tool's schema is refused with, as `/v1` refuses such a field. */
export const INPUT_REFUSED = 'invalid_request';

type Validated<I, O> = Awaited<ReturnType<StandardSchemaWithJSON<I, O>['~standard']['validate']>>;

/**
 * A tool's input schema whose refusal ends with its code, as every other failure of the tools does
 * ("<message> (<code>)"). The SDK validates a call's arguments before the tool runs and answers their
 * issues joined in one text; the code goes at the end of the last of them. Everything else (the JSON
 * Schema the host is shown, what a valid input parses to) is the schema's own.
 */
/** A zod issue in the words every other door says it ("Amount is required"); another schema's, as it is. */
function inWords(issue: { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }): string {
  if (!('code' in issue)) return issue.message;
  return describeIssues(new z.ZodError([issue as z.core.$ZodIssue])).message;
}

export function refusedWithCode<I, O>(schema: StandardSchemaWithJSON<I, O>): StandardSchemaWithJSON<I, O> {
  const standard = schema['~standard'];
  const coded = (result: Validated<I, O>): Validated<I, O> => {
    const { issues } = result;
    if (issues === undefined || issues.length === 0) return result;
    const last = issues.length - 1;
    return {
      issues: issues.map((issue, at) => {
        const message = inWords(issue);
        const coded = at === last ? `${message} (${INPUT_REFUSED})` : message;
        // Coffer's words name the field already: the SDK's own "path: " before them would name it twice
        // ("body: body: …", "url: URL: …", helper 174).
        return 'code' in issue ? { message: coded } : { ...issue, message: coded };
      }),
    };
  };
  return {
    '~standard': {
      ...standard,
      validate: (value, options) => {
        const result = standard.validate(value, options);
        return result instanceof Promise ? result.then(coded) : coded(result);
      },
    },
  };
}
