/**
 * A policy's end (issue 25, point 3): after `expiresAt` every payment of the agent is refused with its
 * own code, and the owner is told a day before (expiry-notices.ts). Pure decisions. A policy's end as
 * data is server/wire/policy/expiry.ts.
 */
import { CofferError, type Refusal } from '../../wire/errors.js';
import { policyEndWords } from '../../wire/policy/expiry.js';

/** The owner is told this long before a policy ends. */
const EXPIRY_NOTICE_MS = 24 * 60 * 60 * 1000;

/**
 * After its end a policy allows no payment: the first refusal of every payment then. Its end said in
 * the owner's zone (`timeZone`, read only for the refusal), where they set it.
 */
export const expiredRefusal = (expiresAt: number | null, now: number, timeZone: () => string): Refusal =>
  expiresAt === null || now < expiresAt
    ? null
    : new CofferError(
        'policy_expired',
        `this agent's policy ended ${policyEndWords(expiresAt, timeZone())}: its payments are refused until the owner sets a later end, or none`,
      );

/**
 * What is told under a policy's coming end (the notices port's subject): once, whatever end the agent
 * itself brings closer (it could otherwise have the owner told every minute); an end the owner sets
 * is told afresh (their change forgets what was told).
 */
export const EXPIRY_SUBJECT = 'expiry';

/** Whether the owner is to be told of a policy's end now: it ends within a day and has not ended yet. */
export const endsSoon = (expiresAt: number | null, now: number): expiresAt is number =>
  expiresAt !== null && now < expiresAt && expiresAt - now <= EXPIRY_NOTICE_MS;

/**
 * The reminder in words, in the owner's zone: "researcher's policy ends at the end of 2026-12-31 in
 * Europe/Lisbon (2027-01-01T00:00:00.000Z): its payments are refused after that, …".
 */
export const expiryWords = (agentId: string, expiresAt: number, timeZone: string) =>
  `${agentId}'s policy ends ${policyEndWords(expiresAt, timeZone)}: its payments are refused after that, unless you set a later end`;
