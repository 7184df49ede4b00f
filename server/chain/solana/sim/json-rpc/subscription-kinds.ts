import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { z } from 'zod';
import type { SimLedger } from '../ledger.js';
import { encodeAccount } from './accounts.js';
import { accountConfig, address, type AccountConfig } from './params.js';
import { toJson } from './rpc.js';

/**
 * The kinds of subscription the embedded chain's RPC subscriptions hold: how each is asked for (its
 * parameters read into a subscription) and what each has to tell when the chain is looked at again.
 */
export type Subscription =
  | { kind: 'signature'; signature: string }
  | { kind: 'slot'; last: bigint }
  | { kind: 'account'; key: string; config: AccountConfig | undefined; last: string };

export const NOTIFICATION = { signature: 'signatureNotification', slot: 'slotNotification', account: 'accountNotification' } as const;
export const UNSUBSCRIBE: Readonly<Record<string, Subscription['kind']>> = {
  signatureUnsubscribe: 'signature',
  slotUnsubscribe: 'slot',
  accountUnsubscribe: 'account',
};

/** A subscription asked for, or why not (a -32602 message). */
type Asked = { subscription: Subscription } | { problem: string };
const invalid = (issues: z.ZodError): Asked => ({ problem: `Invalid params: ${issues.issues[0]?.message ?? 'invalid'}` });

const params = {
  signatureSubscribe: z.tuple([z.string().min(64).max(88)]).rest(z.unknown()),
  slotSubscribe: z.tuple([]),
  accountSubscribe: z.tuple([address, accountConfig.optional()]),
};

/** Each subscribe method: its parameters read into a subscription that knows what was last told. */
export const SUBSCRIBE: Readonly<Record<string, (ledger: SimLedger, args: unknown[]) => Asked>> = {
  signatureSubscribe: (_ledger, args) => {
    const read = params.signatureSubscribe.safeParse(args);
    return read.success ? { subscription: { kind: 'signature', signature: read.data[0] } } : invalid(read.error);
  },
  slotSubscribe: (ledger, args) => {
    const read = params.slotSubscribe.safeParse(args);
    // The first notification tells of the next slot, as a node's does.
    return read.success ? { subscription: { kind: 'slot', last: ledger.slot } } : invalid(read.error);
  },
  accountSubscribe: (ledger, args) => {
    const read = params.accountSubscribe.safeParse(args);
    if (!read.success) return invalid(read.error);
    const [key, config] = read.data;
    if (config?.encoding === 'base64+zstd') return { problem: 'Invalid param: base64+zstd is not supported here; ask for base64' };
    return { subscription: { kind: 'account', key, config, last: toJson(accountNow(ledger, key, config)) } };
  },
};

/** What a subscription has to tell since the last look (its notification's result), or null; it remembers what it told. */
export function news(ledger: SimLedger, subscription: Subscription): object | null {
  if (subscription.kind === 'signature') {
    const found = ledger.findTransaction(subscription.signature);
    return found === null ? null : { context: { slot: found.slot }, value: { err: found.meta.err } };
  }
  if (subscription.kind === 'slot') {
    const slot = ledger.slot;
    if (slot === subscription.last) return null;
    subscription.last = slot;
    return { parent: slot - 1n, root: slot, slot };
  }
  const account = accountNow(ledger, subscription.key, subscription.config);
  const text = toJson(account);
  if (text === subscription.last) return null;
  subscription.last = text;
  return { context: { slot: ledger.slot }, value: account };
}

// A missing (or closed) account is told as a node tells it: no lamports, no data, the System program's.
const accountNow = (ledger: SimLedger, key: string, config: AccountConfig | undefined) =>
  encodeAccount(ledger, key, config) ?? {
    executable: false,
    lamports: 0n,
    owner: SYSTEM_PROGRAM_ADDRESS,
    rentEpoch: 0n,
    space: 0n,
    data: config?.encoding === 'base58' || config?.encoding === undefined ? ['', 'base58'] : ['', 'base64'],
  };
