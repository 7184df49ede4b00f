import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { z } from 'zod';
import type { SimLedger } from './sim-ledger.js';
import { encodeAccount } from './sim-rpc-accounts.js';
import { accountConfig, address, type AccountConfig } from './sim-rpc-params.js';
import { toJson } from './sim-rpc.js';

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

type Subscription =
  | { kind: 'signature'; signature: string }
  | { kind: 'slot'; last: bigint }
  | { kind: 'account'; key: string; config: AccountConfig | undefined; last: string };

const request = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(200), z.number(), z.null()]).optional(),
  method: z.string().max(100),
  params: z.array(z.unknown()).max(4).optional(),
});
const subscriptionId = z.tuple([z.number().int().min(0)]);
const params = {
  signatureSubscribe: z.tuple([z.string().min(64).max(88)]).rest(z.unknown()),
  slotSubscribe: z.tuple([]),
  accountSubscribe: z.tuple([address, accountConfig.optional()]),
};
const NOTIFICATION = { signature: 'signatureNotification', slot: 'slotNotification', account: 'accountNotification' } as const;

export interface SubscriptionSession {
  /** A message from the client: a subscribe or unsubscribe request (JSON text). */
  receive(text: string): void;
  /** The connection ended: its subscriptions with it. */
  close(): void;
}

export function createSimRpcSubscriptions(ledger: SimLedger) {
  const sessions = new Set<{ poll(): void }>();
  let timer: NodeJS.Timeout | null = null;
  const schedule = () => {
    if (timer !== null || sessions.size === 0) return;
    timer = setInterval(() => {
      for (const session of sessions) session.poll();
    }, POLL_MS);
    timer.unref();
  };
  const unschedule = () => {
    if (timer !== null && sessions.size === 0) {
      clearInterval(timer);
      timer = null;
    }
  };

  return {
    open(send: (text: string) => void): SubscriptionSession {
      const subscriptions = new Map<number, Subscription>();
      let nextId = 0;
      const answer = (id: unknown, result: unknown) => send(toJson({ jsonrpc: '2.0', id, result }));
      const fail = (id: unknown, code: number, message: string) =>
        send(toJson({ jsonrpc: '2.0', id: id ?? null, error: { code, message } }));
      const notify = (id: number, kind: Subscription['kind'], result: unknown) =>
        send(toJson({ jsonrpc: '2.0', method: NOTIFICATION[kind], params: { result, subscription: id } }));
      // A missing (or closed) account is told as a node tells it: no lamports, no data, the System program's.
      const accountNow = (key: string, config: AccountConfig | undefined) =>
        encodeAccount(ledger, key, config) ?? {
          executable: false,
          lamports: 0n,
          owner: SYSTEM_PROGRAM_ADDRESS,
          rentEpoch: 0n,
          space: 0n,
          data: config?.encoding === 'base58' || config?.encoding === undefined ? ['', 'base58'] : ['', 'base64'],
        };

      const session = {
        poll() {
          for (const [id, subscription] of subscriptions) {
            try {
              pollOne(id, subscription);
            } catch (error) {
              // A read that fails ends that subscription, said as an error, never the process.
              subscriptions.delete(id);
              fail(null, -32603, `Internal error: subscription ${id} ended: ${(error as Error).message}`);
            }
          }
          if (subscriptions.size === 0) {
            sessions.delete(session);
            unschedule();
          }
        },
      };
      /** What one subscription has to say since the last look, if anything. */
      const pollOne = (id: number, subscription: Subscription) => {
        if (subscription.kind === 'signature') {
          const found = ledger.findTransaction(subscription.signature);
          if (found === null) return;
          subscriptions.delete(id);
          notify(id, 'signature', { context: { slot: found.slot }, value: { err: found.meta.err } });
        } else if (subscription.kind === 'slot') {
          const slot = ledger.slot;
          if (slot === subscription.last) return;
          subscription.last = slot;
          notify(id, 'slot', { parent: slot - 1n, root: slot, slot });
        } else {
          const account = accountNow(subscription.key, subscription.config);
          const text = toJson(account);
          if (text === subscription.last) return;
          subscription.last = text;
          notify(id, 'account', { context: { slot: ledger.slot }, value: account });
        }
      };
      const subscribe = (id: unknown, subscription: Subscription) => {
        if (subscriptions.size >= MAX_SUBSCRIPTIONS) return fail(id, -32602, `at most ${MAX_SUBSCRIPTIONS} subscriptions a connection`);
        const subscriptionNumber = nextId++;
        subscriptions.set(subscriptionNumber, subscription);
        sessions.add(session);
        schedule();
        answer(id, subscriptionNumber);
      };

      const receive = (text: string) => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          return fail(null, -32700, 'Parse error');
        }
        const parsed = request.safeParse(body);
        if (!parsed.success) return fail(null, -32600, 'Invalid request');
        const { id, method } = parsed.data;
        const args = parsed.data.params ?? [];
        const invalid = (issues: z.ZodError) => fail(id, -32602, `Invalid params: ${issues.issues[0]?.message ?? 'invalid'}`);
        switch (method) {
          case 'signatureSubscribe': {
            const read = params.signatureSubscribe.safeParse(args);
            return read.success ? subscribe(id, { kind: 'signature', signature: read.data[0] }) : invalid(read.error);
          }
          case 'slotSubscribe': {
            const read = params.slotSubscribe.safeParse(args);
            // The first notification tells of the next slot, as a node's does.
            return read.success ? subscribe(id, { kind: 'slot', last: ledger.slot }) : invalid(read.error);
          }
          case 'accountSubscribe': {
            const read = params.accountSubscribe.safeParse(args);
            if (!read.success) return invalid(read.error);
            const [key, config] = read.data;
            if (config?.encoding === 'base64+zstd')
              return fail(id, -32602, 'Invalid param: base64+zstd is not supported here; ask for base64');
            return subscribe(id, { kind: 'account', key, config, last: toJson(accountNow(key, config)) });
          }
          case 'signatureUnsubscribe':
          case 'slotUnsubscribe':
          case 'accountUnsubscribe': {
            const read = subscriptionId.safeParse(args);
            if (!read.success) return invalid(read.error);
            const kind = method.replace('Unsubscribe', '') as Subscription['kind'];
            const held = subscriptions.get(read.data[0]);
            if (held === undefined || held.kind !== kind) return fail(id, -32602, 'Invalid subscription id');
            subscriptions.delete(read.data[0]);
            return answer(id, true);
          }
          default:
            return fail(id, -32601, `Method not found: ${method}`);
        }
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
          sessions.delete(session);
          unschedule();
        },
      };
    },
  };
}

export type SimRpcSubscriptions = ReturnType<typeof createSimRpcSubscriptions>;
