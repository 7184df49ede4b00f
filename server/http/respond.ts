import type { Response } from 'express';
import type { Outcome } from '../core/outcome.js';

/** 200 with the result, or 202 with the approval when the request now waits for the owner. */
export function respondWithOutcome(res: Response, outcome: Outcome<unknown>): void {
  if (outcome.kind === 'awaiting_approval') {
    res.status(202).json(outcome.approval);
    return;
  }
  res.json(outcome.result);
}
