/** The /v1 answer about the owner's settings. */

/** The time zone calendar budgets and named days follow: the owner's when set, else the machine's. */
export type Settings = {
  timeZone: string;
  timeZoneFrom: 'machine' | 'owner';
};
