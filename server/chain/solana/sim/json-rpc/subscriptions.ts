import { z } from 'zod';
import type { SimLedger } from '../ledger.js';
import { toJson } from './rpc.js';
import { NOTIFICATION, SUBSCRIBE, UNSUBSCRIBE, news, type Subscription } from './subscription-kinds.js';

/**
 * Solana's RPC subscriptions over the embedded chain, as a cluster's WebSocket answers them: what
 * `@solana/kit`'s `createSolanaRpcSubscriptions` asks, so its `sendAndConfirmTransactionFactory` (a
 * signature's confirmation, the block height by slots) and account watchers work against `/rpc`.
 * `signatureSubscribe` (one notification, then it ends), `slotSubscribe`, `accountSubscribe`, each
 * with its `…Unsubscribe`. What is notified is read from the chain as it is committed, every
 * POLL_MS while a subscription is open (nothing when none is): a notification never tells of a
 * transaction its write did not keep. Transport-agnostic: text in, text out (server/http serves it
 * over WebSocket).
 */
const POLL_MS = 50;
/** Subscriptions one connection may hold: more is refused, as a node limits them. */
const MAX_SUBSCRIPTIONS = 1_000;

const request = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(200), z.number(), z.null()]).optional(),
  method: z.string().max(100),
  params: z.array(z.unknown()).max(4).optional(),
});
const subscriptionId = z.tuple([z.number().int().min(0)]);

export interface SubscriptionSession {
  /** A message from the client: a subscribe or unsubscribe request (JSON text). */
  receive(text: string): void;
  /** The connection ended: its subscriptions with it. */
  close(): void;
}

interface PolledSession {
  poll(): void;
}
/** The sessions polled while they hold a subscription: polled together, every POLL_MS, while there is one. */
interface Polling {
  watch(session: PolledSession): void;
  unwatch(session: PolledSession): void;
}

export function createSimRpcSubscriptions(ledger: SimLedger) {
  const sessions = new Set<PolledSession>();
  let timer: NodeJS.Timeout | null = null;
  const polling: Polling = {
    watch(session) {
      sessions.add(session);
      if (timer !== null) return;
      timer = setInterval(() => {
        for (const polled of sessions) polled.poll();
      }, POLL_MS);
      timer.unref();
    },
    unwatch(session) {
      sessions.delete(session);
      if (timer !== null && sessions.size === 0) {
        clearInterval(timer);
        timer = null;
      }
    },
  };
  return { open: (send: (text: string) => void): SubscriptionSession => openSession(ledger, send, polling) };
}

export type SimRpcSubscriptions = ReturnType<typeof createSimRpcSubscriptions>;

/** One connection: its subscriptions, numbered from 0, and what it is sent. */
function openSession(ledger: SimLedger, send: (text: string) => void, polling: Polling): SubscriptionSession {
  const subscriptions = new Map<number, Subscription>();
  let nextId = 0;
  const { answer, fail, notify } = replies(send);

  const session: PolledSession = {
    poll() {
      for (const [id, subscription] of subscriptions) {
        try {
          const result = news(ledger, subscription);
          if (result === null) continue;
          // A signature is told once: its subscription ends with it.
          if (subscription.kind === 'signature') subscriptions.delete(id);
          notify(id, subscription.kind, result);
        } catch (error) {
          // A read that fails ends that subscription, said as an error, never the process.
          subscriptions.delete(id);
          fail(null, -32603, `Internal error: subscription ${id} ended: ${(error as Error).message}`);
        }
      }
      if (subscriptions.size === 0) polling.unwatch(session);
    },
  };
  const subscribe = (id: unknown, subscription: Subscription) => {
    if (subscriptions.size >= MAX_SUBSCRIPTIONS) return fail(id, -32602, `at most ${MAX_SUBSCRIPTIONS} subscriptions a connection`);
    const subscriptionNumber = nextId++;
    subscriptions.set(subscriptionNumber, subscription);
    polling.watch(session);
    answer(id, subscriptionNumber);
  };
  const unsubscribe = (id: unknown, kind: Subscription['kind'], args: unknown[]) => {
    const read = subscriptionId.safeParse(args);
    if (!read.success) return fail(id, -32602, `Invalid params: ${read.error.issues[0]?.message ?? 'invalid'}`);
    const held = subscriptions.get(read.data[0]);
    if (held === undefined || held.kind !== kind) return fail(id, -32602, 'Invalid subscription id');
    subscriptions.delete(read.data[0]);
    answer(id, true);
  };

  const receive = (text: string) => {
    const parsed = readRequest(text);
    if ('code' in parsed) return fail(null, parsed.code, parsed.message);
    const { id, method, args } = parsed;
    const kind = Object.hasOwn(UNSUBSCRIBE, method) ? UNSUBSCRIBE[method] : undefined;
    if (kind !== undefined) return unsubscribe(id, kind, args);
    const ask = Object.hasOwn(SUBSCRIBE, method) ? SUBSCRIBE[method] : undefined;
    if (ask === undefined) return fail(id, -32601, `Method not found: ${method}`);
    const asked = ask(ledger, args);
    return 'problem' in asked ? fail(id, -32602, asked.problem) : subscribe(id, asked.subscription);
  };

  return {
    receive(text) {
      // Whatever one message does, it is answered, never thrown into the socket's listener.
      try {
        receive(text);
      } catch (error) {
        fail(null, -32603, `Internal error: ${(error as Error).message}`);
      }
    },
    close() {
      subscriptions.clear();
      polling.unwatch(session);
    },
  };
}

/** A message's JSON-RPC envelope read, or the error that answers it. */
function readRequest(text: string): { id: unknown; method: string; args: unknown[] } | { code: number; message: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { code: -32700, message: 'Parse error' };
  }
  const parsed = request.safeParse(body);
  if (!parsed.success) return { code: -32600, message: 'Invalid request' };
  return { id: parsed.data.id, method: parsed.data.method, args: parsed.data.params ?? [] };
}

/** What a session sends: answers, errors, notifications (u64 values written exactly). */
function replies(send: (text: string) => void) {
  return {
    answer: (id: unknown, result: unknown) => send(toJson({ jsonrpc: '2.0', id, result })),
    fail: (id: unknown, code: number, message: string) => send(toJson({ jsonrpc: '2.0', id: id ?? null, error: { code, message } })),
    notify: (id: number, kind: Subscription['kind'], result: unknown) =>
      send(toJson({ jsonrpc: '2.0', method: NOTIFICATION[kind], params: { result, subscription: id } })),
  };
}
