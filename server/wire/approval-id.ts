/**
 * A request's id as the doors take it: `apr_` then base64url characters (Coffer writes 16, from 12
 * random bytes: server/core/approvals/requests.ts), with room to spare. One pattern for the x402
 * purchase's `approvalId` and the CLI's `--approval`.
 */
export const APPROVAL_ID = /^apr_[A-Za-z0-9_-]{1,64}$/;
