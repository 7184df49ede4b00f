/**
 * A request's id as the doors take it: `apr_` then base64url characters (Coffer writes 16, from 12
 * random bytes: server/core/approvals/requests.ts), with room to spare. One pattern for the x402
 * purchase's `approvalId` and the CLI's `--approval`.
 */
export const APPROVAL_ID = /^apr_[A-Za-z0-9_-]{1,64}$/;

/**
 * A request's id in a refusal's words: quoted where it is one, else not repeated (a path's id may
 * hold a bidirectional control or anything else that would lie on the owner's screen).
 */
export const approvalIdWords = (id: string): string =>
  APPROVAL_ID.test(id) ? `"${id}"` : 'with that id (an id is apr_ and letters, digits, "_" or "-")';
