import type { CofferEventWithTime } from '../server/core/events.js';

export interface DesktopNotification {
  title: string;
  body: string;
  /** Where a click on the notification opens the dashboard. */
  route: string;
}

/**
 * Which events deserve a desktop notification, and what it says: an approval waiting, a payment
 * refused by policy, an agent stopped, a deposit arrived. Everything else stays in the dashboard.
 */
export function notificationFor(event: CofferEventWithTime): DesktopNotification | null {
  switch (event.type) {
    case 'approval':
      return event.status === 'pending'
        ? { title: 'Approval waiting', body: `${event.agentId} asks: ${event.kind === 'allocate' ? 'funds' : event.kind === 'deploy' ? 'a new agent' : event.kind === 'resume' ? 'to resume' : 'a looser policy'}`, route: '#/approvals' }
        : null;
    case 'payment_refused':
      return { title: `Payment refused: ${event.agentId}`, body: `${event.amount} USDC to ${event.service}: ${event.message}`, route: `#/agents/${encodeURIComponent(event.agentId)}` };
    case 'agent':
      return event.status === 'suspended'
        ? { title: `${event.agentId} stopped`, body: 'Its payments are refused until you resume it.', route: `#/agents/${encodeURIComponent(event.agentId)}` }
        : null;
    case 'deposit':
      return { title: 'Deposit arrived', body: `${event.amount} USDC reached the treasury.`, route: '#/' };
    default:
      return null;
  }
}
