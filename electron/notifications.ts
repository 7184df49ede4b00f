import { railName } from '../server/wire/rail-words.js';
import type { Notification as ElectronNotification } from 'electron';
import type { CofferEventWithTime } from '../server/core/events.js';
import { groupThousands } from '../server/wire/money.js';
import { describeRequest } from '../server/wire/describe-request.js';
import type { ElectronApi } from './electron-api.js';

export interface DesktopNotification {
  title: string;
  body: string;
  /** Where a click on the notification opens the dashboard. */
  route: string;
}

/**
 * Which events deserve a desktop notification, and what it says: an approval waiting, a payment
 * refused by policy, an agent stopped (by its breaker: why), a budget near its limit or a policy
 * ending within a day, a deposit arrived, a scheduled backup failed. Everything else stays in the dashboard.
 */
export function notificationFor(
  event: CofferEventWithTime,
  timeZone: string | null = null,
  /** An agent as the owner named it (the tray's and the dashboard's words); its id where it has no other. */
  nameOf: (agentId: string) => string = (agentId) => agentId,
): DesktopNotification | null {
  const name = 'agentId' in event ? nameOf(event.agentId) : '';
  switch (event.type) {
    case 'approval':
      if (event.status === 'pending' && event.kind === 'payment') {
        return {
          title: `${name} asks to pay`,
          body: `${describeRequest(event.kind, event.request ?? {})}. Nothing is paid until you approve.`,
          route: '#/approvals',
        };
      }
      return event.status === 'pending'
        ? {
            title: 'Approval waiting',
            body: `${name} asks: ${describeRequest(event.kind, event.request ?? {}, null, timeZone)}`,
            route: '#/approvals',
          }
        : null;
    case 'payment_refused':
      return {
        title: `Payment refused: ${name}`,
        body: `${groupThousands(event.amount)} USDC${event.rail === 'base' ? ' on Base' : ''} to ${event.service}: ${event.message}`,
        route: `#/agents/${encodeURIComponent(event.agentId)}`,
      };
    case 'agent':
      if (event.status !== 'suspended') return null;
      return event.reason !== undefined
        ? {
            title: `${name} stopped by its breaker`,
            body: `${event.reason.charAt(0).toUpperCase()}${event.reason.slice(1)}. Only you can resume it.`,
            route: `#/agents/${encodeURIComponent(event.agentId)}`,
          }
        : {
            title: `${name} stopped`,
            body: 'Its payments are refused until you resume it.',
            route: `#/agents/${encodeURIComponent(event.agentId)}`,
          };
    case 'warning':
      return {
        title: event.about === 'expiry' ? `${name}'s policy ends soon` : `${name} is near a limit`,
        body: event.message,
        route: `#/agents/${encodeURIComponent(event.agentId)}`,
      };
    case 'backup':
      // Only a scheduled backup that failed: the owner counts on it running unattended.
      return 'file' in event && event.file === 'failed'
        ? {
            title: 'Scheduled backup failed',
            body: `${event.error ?? 'no file was written'}. It is tried again within the hour.`,
            route: '#/backup',
          }
        : null;
    case 'deposit':
      return {
        title: 'Deposit arrived',
        body: `${groupThousands(event.amount)} USDC reached the treasury on ${railName(event.rail)}.`,
        route: '#/',
      };
    default:
      return null;
  }
}

/** Notifications of one kind about one agent are shown at most this often; the rest are counted. */
export const NOTIFICATION_REPEAT_MS = 60_000;

/**
 * The agent and kind a notification is about: repeats of one key are coalesced. A request waiting
 * for the owner is its own key: each is a decision of its own (and an agent has at most 20 waiting).
 */
const keyOf = (event: CofferEventWithTime) =>
  event.type === 'approval' ? `approval:${event.approvalId}` : `${event.type}:${'agentId' in event ? event.agentId : ''}`;

/**
 * Shows desktop notifications. Each is kept referenced until it is clicked, closed or fails: a
 * Notification the garbage collector takes loses its click handler (electron#16922). Repeats for one
 * agent and kind within a minute are counted, not shown (an agent retrying must not flood the owner;
 * requests waiting for the owner are each shown),
 * and the next one says how many there were; what the owner does from the tray is not announced.
 */
export function createNotifier(
  Notification: ElectronApi['Notification'],
  open: (route: string) => void,
  now: () => number,
  /** The owner's time zone now: a request's end is said as the day they typed. */
  timeZone: () => string | null = () => null,
  /** An agent's name now, as the tray lists it. */
  nameOf: (agentId: string) => string = (agentId) => agentId,
) {
  const live = new Set<ElectronNotification>();
  const shown = new Map<string, { at: number; held: number }>();
  let ownerActing = 0;
  return {
    /** Notifications shown and not yet clicked or closed. */
    live,
    /**
     * Runs what the owner does from the tray: the events it raises (the engine emits them while it
     * acts) are the owner's own doing, and are not announced back to them.
     */
    asOwner<T>(run: () => T): T {
      ownerActing += 1;
      try {
        return run();
      } finally {
        ownerActing -= 1;
      }
    },
    notify(event: CofferEventWithTime): void {
      if (ownerActing > 0) return;
      const note = notificationFor(event, event.type === 'approval' ? timeZone() : null, nameOf);
      if (note === null || !Notification.isSupported()) return;
      const key = keyOf(event);
      const last = shown.get(key);
      if (last !== undefined && now() - last.at < NOTIFICATION_REPEAT_MS) {
        last.held += 1;
        return;
      }
      const held = last?.held ?? 0;
      shown.set(key, { at: now(), held: 0 });
      const notification = new Notification({
        title: note.title,
        body: held > 0 ? `${note.body} (and ${held} more like it)` : note.body,
        silent: event.type === 'deposit',
      });
      live.add(notification);
      const forget = () => live.delete(notification);
      notification.on('click', () => {
        forget();
        open(note.route);
      });
      notification.on('close', forget);
      notification.on('failed', forget);
      notification.show();
    },
  };
}
