/** The /v1 answer about the owner's settings. */

import type { Rail } from '../rails.js';

/** The owner's settings. */
export type Settings = {
  /** The time zone calendar budgets and named days follow: the owner's when set, else the machine's. */
  timeZone: string;
  timeZoneFrom: 'machine' | 'owner';
  /** The rail x402 purchases are paid on where a seller takes both and it holds the funds; null: none named. */
  preferredRail: Rail | null;
};
