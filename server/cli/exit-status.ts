/**
 * The status a command that failed exits with, by the code it failed with: 3 where no Coffer answers
 * (none runs, or it is gone), which a script may wait out and try again; 1 for any refusal or failure.
 * (2, a command used wrongly, is the usage error's.)
 */
export const exitStatusOf = (code: string | null): number => (code === 'coffer_unreachable' ? 3 : 1);
