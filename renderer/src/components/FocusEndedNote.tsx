import type { Approval } from '../api/types.js';
import { pillWords } from '../lib/approval-words.js';
import { dateTime } from '../lib/time.js';

/** Said when the request a link opened no longer waits: how it ended, if the decided ones read hold it. */
export function FocusEndedNote({ ended, timeZone }: { ended: Approval | undefined; timeZone: string }) {
  return (
    <p className="hint" role="status" data-testid="focus-ended">
      {ended
        ? `The request you opened no longer waits: ${pillWords(ended)}${ended.decidedAt ? `, ${dateTime(ended.decidedAt, timeZone)}` : ''}.`
        : 'The request you opened no longer waits for you (decided, expired or withdrawn); see Decided below.'}
    </p>
  );
}
