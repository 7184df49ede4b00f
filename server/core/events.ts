/**
 * What happened, as it happens: payments, refusals, kills, approvals, deposits, image tasks. The engine publishes;
 * doors subscribe (the SSE stream for the dashboard, the tray's notifications). In-process only, and a
 * listener that throws never disturbs the engine or the other listeners.
 */
import type { Rail } from '../wire/rails.js';
export type CofferEvent =
  | {
      type: 'payment';
      owner: string;
      agentId: string;
      paymentId: string;
      status: 'confirmed' | 'failed';
      amount: string;
      service: string;
      rail: Rail;
    }
  | {
      type: 'payment_refused';
      owner: string;
      agentId: string;
      code: string;
      message: string;
      amount: string;
      service: string;
      rail: Rail | null;
    }
  | { type: 'allocation'; owner: string; agentId: string; allocationId: string; status: 'confirmed' | 'failed'; amount: string; rail: Rail }
  | { type: 'return'; owner: string; agentId: string; returnId: string; status: 'confirmed' | 'failed'; amount: string; rail: Rail }
  | {
      type: 'refund';
      owner: string;
      agentId: string;
      refundId: string;
      paymentId: string;
      status: 'confirmed' | 'failed';
      amount: string;
      rail: Rail;
    }
  /** `reason` comes with an agent that stopped itself (its breaker tripped): why, in words. */
  | { type: 'agent'; owner: string; agentId: string; status: 'active' | 'suspended' | 'deployed' | 'archived'; reason?: string }
  /** `request` (what was asked) comes with a request just made (status `pending`). */
  | {
      type: 'approval';
      owner: string;
      agentId: string;
      approvalId: string;
      kind: string;
      status: string;
      request?: Record<string, unknown>;
    }
  | { type: 'deposit'; owner: string; amount: string; txSignature: string; rail: Rail }
  | { type: 'policy'; owner: string; agentId: string }
  /** The owner is warned: a budget passed a share they set, or a policy ends within a day. */
  | { type: 'warning'; owner: string; agentId: string; about: 'budget' | 'expiry'; message: string }
  /** The recovery phrase was confirmed (never the phrase itself). */
  | { type: 'backup'; owner: string; recoveryPhrase: 'confirmed' }
  /** A backup file was written, or a scheduled one could not be (why, never the passphrase). */
  | { type: 'backup'; owner: string; file: 'written' | 'failed'; error?: string }
  | { type: 'task'; owner: string; agentId: string; taskId: string; status: 'generating' | 'success' | 'failed' };

export type CofferEventWithTime = CofferEvent & { at: string };

export class EventBus {
  private readonly listeners = new Set<(event: CofferEventWithTime) => void>();

  constructor(private readonly now: () => number) {}

  emit(event: CofferEvent): void {
    const stamped = { ...event, at: new Date(this.now()).toISOString() } as CofferEventWithTime;
    for (const listener of this.listeners) {
      try {
        listener(stamped);
      } catch {
        // A broken listener is its own problem.
      }
    }
  }

  subscribe(listener: (event: CofferEventWithTime) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
