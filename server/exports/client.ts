/**
 * `coffer/client`: what an agent's own code imports from an installed Coffer. `payingFetch` calls a
 * URL and pays its 402 (Coffer's terms or an x402 offer) from the agent's wallet, within its policy;
 * the /v1 client calls Coffer itself (balance, policy, spend history, approvals). Both speak to the
 * agent's Coffer over HTTP with the agent's key: nothing here holds a wallet key.
 */
export { payingFetch } from '../x402/paying-fetch/paying-fetch.js';
export { PaymentError } from '../x402/paying-fetch/payment-error.js';
export { linkedAgent } from './linked-agent.js';
export type { PaidResponse, PaymentMade } from '../x402/paying-fetch/paid-response.js';
export type { PayingAgent, PayingFetchOptions } from '../x402/paying-fetch/paying-fetch-options.js';
export type { PaymentErrorCode } from '../x402/paying-fetch/payment-error.js';
// What PaymentError's details.instructions hold: the terms of Coffer's own 402 that was not paid.
export type { PaymentInstructions } from '../x402/payment-required.js';
export { createCofferClient, keyClient, type CofferClient } from '../client/coffer-client.js';
export { CofferApiError } from '../client/client-error.js';
export type * as Wire from './wire.js';
