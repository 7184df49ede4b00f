/** Answers the HTTP door makes itself (no engine handler returns them): the dashboard's sign-in, and health. */

/** GET /v1/session (server/http/dashboard.ts): whom a session signs in as, and until when. */
export type Session = {
  owner: string;
  network: string;
  usdcMint: string;
  signedInAt: string;
  expiresAt: string;
};

/** POST /v1/session: a login link's token traded for a session token. */
export type SessionStarted = Session & {
  sessionToken: string;
};

/** DELETE /v1/session. */
export type SignedOut = {
  signedOut: true;
};

/** POST /v1/session/login-link. */
export type LoginLink = {
  url: string;
  expiresInSeconds: number;
};

/** GET /v1/health (server/http/app.ts). */
export type Health = {
  ok: boolean;
  network: string;
  version: string;
  usdcMint: string;
  /** The Base rail where it is open: its network, chain id and USDC; null where it is off. */
  base: { network: string; chainId: number; usdc: string } | null;
};
