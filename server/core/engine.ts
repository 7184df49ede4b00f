/**
 * The engine: every rule of Coffer behind named handlers, one small app per capability (each folder's
 * app.ts says what it holds). HTTP routes, MCP tools, CLI commands and tray items are thin doors onto
 * these same calls.
 */
import { authenticate, authenticateCredential, type SessionOwner } from './auth.js';
import { createEngineContext, type EnginePorts } from './context.js';
import type { ApprovalCarriers } from './approvals/carriers.js';
import { agentApprovals, agentsApp, keyForAskingAgent } from './agents/app.js';
import { approvalsApp } from './approvals/app.js';
import { backupApp } from './backup/app.js';
import { generationApp, heldPaymentApprovals } from './generation/app.js';
import { beforeHeldPaymentYes, interruptedHeldPayment, paymentsApp } from './payments/app.js';
import { policyApp, policyApprovals } from './policy/app.js';
import { registryApp } from './registry/app.js';
import { settingsApp } from './settings.js';
import { transfersApp } from './transfers/app.js';
import { treasuryApp, treasuryApprovals } from './treasury/app.js';

export function createEngine(ports: EnginePorts) {
  const ctx = createEngineContext(ports);
  return {
    ctx,
    network: ctx.chain.network,
    events: ctx.events,
    authenticate: (owner: unknown, bearer: string | null, session: SessionOwner | null = null) =>
      authenticate(ctx.store, owner, bearer, session),
    authenticateCredential: (owner: unknown, bearer: string | null, session: SessionOwner | null = null) =>
      authenticateCredential(ctx.store, owner, bearer, session),
    ...treasuryApp(ctx),
    ...agentsApp(ctx),
    ...policyApp(ctx),
    ...paymentsApp(ctx),
    ...generationApp(ctx),
    ...approvalsApp(ctx, approvalCarriers),
    ...transfersApp(ctx),
    ...backupApp(ctx),
    ...registryApp(ctx),
    ...settingsApp(ctx),
  };
}

/**
 * What each kind of approved request carries out, said by the capability that owns it: the approvals
 * carry them out through this table and name none of them. A held payment's is generation's
 * (generation/app.ts): it pays one that buys an image together with the image's task, and any other
 * through payments' payHeld (payments cannot name generation, which pays through them).
 */
const approvalCarriers: ApprovalCarriers = {
  carryOut: { ...agentApprovals, ...policyApprovals, ...treasuryApprovals, ...heldPaymentApprovals },
  beforePaymentYes: beforeHeldPaymentYes,
  interruptedPayment: interruptedHeldPayment,
  issueAgentKey: keyForAskingAgent,
};

export type Engine = ReturnType<typeof createEngine>;
