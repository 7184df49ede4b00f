import type { Response } from 'express';
import { PendingApproval } from '../core/approvals.js';

/** 200 with the result, or 202 with the approval when the request now waits for the owner. */
export function respond(res: Response, value: unknown): void {
  if (value instanceof PendingApproval) {
    res.status(202).json(value.approval);
    return;
  }
  res.json(value);
}
