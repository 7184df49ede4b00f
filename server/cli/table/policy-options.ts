// The policy's flags as a command line takes them: `coffer policy` changes a policy with them, and
// `coffer deploy` starts an agent under them. One list, so the two never differ in what they take.

/** Each policy flag's option (read into a policy update by policy-flags.ts). */
export const policyFlagOptions = {
  budget: { type: 'string', multiple: true },
  count: { type: 'string', multiple: true },
  expires: { type: 'string' },
  'warn-at': { type: 'string' },
  breaker: { type: 'string', multiple: true },
  'ask-above': { type: 'string' },
  'ask-new-recipient': { type: 'string' },
  daily: { type: 'string' },
  max: { type: 'string' },
  cooldown: { type: 'string' },
  allow: { type: 'string', multiple: true },
} as const;

/** The flags of policyFlagOptions as a usage line shows them, indented under the command's name. */
export const POLICY_FLAGS_USAGE = `[--budget AMOUNT/WINDOW[:SCOPE]]... [--count N/WINDOW[:SCOPE]]...
                 [--expires DAY|TIME|never] [--warn-at P,P|none] [--breaker N/TIME|P%/TIME|none]...
                 [--ask-above AMOUNT|none] [--ask-new-recipient yes|no]
                 [--daily AMOUNT] [--max AMOUNT] [--cooldown SECONDS] [--allow SERVICE|any]...`;
