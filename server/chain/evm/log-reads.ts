/**
 * Reads of the token's logs within what public nodes answer: a public Base RPC searches about 1,000
 * blocks in one eth_getLogs and refuses a search of the chain's history (Base makes a block every
 * 2 s: some 40 million so far). So a log is looked for where it can be, a page at a time: an
 * authorization's in the blocks of its window, an account's activity over the whole chain where the
 * node allows it, else over its recent pages, a wallet's incoming USDC a round of pages at a time.
 */
import { getAddress, type Address, type Hash, type PublicClient } from 'viem';
import { USDC_ABI } from './usdc-abi.js';
import type { IncomingTransfer } from '../../core/ports/chain.js';

/** A page of logs: within what public Base RPCs answer in one eth_getLogs. */
export const LOG_PAGE_BLOCKS = 1_000n;
/** Pages of an account's activity read where a node refuses a search of the whole chain: about 11 hours of Base's blocks. */
const RECENT_ACTIVITY_PAGES = 20;
/** Where the first read of a wallet's incoming USDC starts: about an hour of Base's 2-second blocks back. */
const FIRST_READ_BLOCKS = 2_000n;
/** Pages a round of incoming USDC reads at most: a watcher that fell behind catches up 20,000 blocks a round. */
const DEPOSIT_PAGES_PER_ROUND = 20;

const lesser = (a: bigint, b: bigint) => (a < b ? a : b);

/** The first block whose time is at or after `time` (seconds): galloping back from the newest, then halving. */
async function firstBlockAtOrAfter(client: PublicClient, time: bigint, latest: { number: bigint; timestamp: bigint }): Promise<bigint> {
  if (latest.timestamp < time) return latest.number + 1n;
  const timeOf = async (blockNumber: bigint) => (await client.getBlock({ blockNumber })).timestamp;
  // `high`'s time is at or after `time`; `low`'s before it (-1: before the first block).
  let high = latest.number;
  let low = -1n;
  for (let step = LOG_PAGE_BLOCKS; high - step >= 0n; step *= 2n) {
    const candidate = high - step;
    if ((await timeOf(candidate)) < time) {
      low = candidate;
      break;
    }
    high = candidate;
  }
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if ((await timeOf(middle)) < time) low = middle;
    else high = middle;
  }
  return high;
}

/**
 * How far before a moment by this host's clock, reckoned on the chain's, an authorization's landing
 * is looked for: the reckoning may be off by this much (a clock stepped since, a node that lags).
 */
const CLOCK_SLACK_SECONDS = 300n;

/**
 * Where an authorization signed or sent at `hostTime` (seconds by this host's clock; `now` likewise)
 * is first looked for, by the chain's clock: this host's may run ahead of it (a host minutes fast),
 * and the log would be looked for after it landed. A chain whose blocks are made on demand takes their
 * times from this host's clock: its newest block's age is idleness, not a difference of clocks.
 */
export function earliestOnChain(hostTime: bigint, now: bigint, newest: { timestamp: bigint }, blocksOnDemand: boolean): bigint {
  const chainBehind = !blocksOnDemand && now > newest.timestamp ? now - newest.timestamp : 0n;
  return hostTime - chainBehind - CLOCK_SLACK_SECONDS;
}

/**
 * How long before a search's start an authorization the token says is used, but whose log is not
 * found from there, is looked for: a clock that ran up to two hours ahead as it signed and was set
 * right since (the chain's lag measured now no longer says how far), or another settlement of it
 * before this one (a paywall's nonce lives minutes). Some 4 pages of Base's blocks.
 */
export const EARLIER_SEARCHED_SECONDS = 7_200n;

/**
 * The transaction an authorization ran in: its AuthorizationUsed log, looked for in the blocks of
 * its window only (EIP-3009 runs it in a block whose time is after `validAfter` and before
 * `validBefore`), from `earliest` (seconds by the chain's clock: when it could first have run), a page
 * at a time. Null: not there (it was canceled, or never used).
 */
export async function authorizationUsedIn(
  client: PublicClient,
  usdc: Address,
  authorization: { from: Address; nonce: Hash; validAfter: bigint; validBefore: bigint },
  earliest: bigint,
  /** The newest block, where the caller read it already (the state it asked was read there: a load-balanced RPC's next node may lag). */
  newest?: { number: bigint; timestamp: bigint },
  /** Where the search ends (seconds, the chain's clock), before the authorization's end: the part of its window read already. */
  until?: bigint,
): Promise<Hash | null> {
  const latest = newest ?? (await client.getBlock({ blockTag: 'latest' }));
  const opens = earliest > authorization.validAfter ? earliest : authorization.validAfter;
  const closes = until !== undefined && until < authorization.validBefore ? until : authorization.validBefore;
  const first = await firstBlockAtOrAfter(client, opens, latest);
  const last = lesser(await firstBlockAtOrAfter(client, closes, latest), latest.number);
  return authorizationLogIn(client, usdc, 'AuthorizationUsed', authorization, first, last);
}

/**
 * The transaction in which an authorization's payer canceled it (its AuthorizationCanceled log):
 * EIP-3009 takes a cancellation at any time before the authorization runs, so it is looked for from
 * `earliest` (seconds by the chain's clock) to the newest block, a page at a time. Null: not there.
 */
export async function authorizationCanceledIn(
  client: PublicClient,
  usdc: Address,
  authorization: { from: Address; nonce: Hash },
  earliest: bigint,
  newest: { number: bigint; timestamp: bigint },
): Promise<Hash | null> {
  const first = await firstBlockAtOrAfter(client, earliest, newest);
  return authorizationLogIn(client, usdc, 'AuthorizationCanceled', authorization, first, newest.number);
}

/** The first of the token's logs of this kind for an authorization (its payer and nonce) in blocks `first` to `last`, a page at a time. */
async function authorizationLogIn(
  client: PublicClient,
  usdc: Address,
  eventName: 'AuthorizationUsed' | 'AuthorizationCanceled',
  authorization: { from: Address; nonce: Hash },
  first: bigint,
  last: bigint,
): Promise<Hash | null> {
  for (let fromBlock = first; fromBlock <= last; fromBlock += LOG_PAGE_BLOCKS) {
    const [found] = await client.getContractEvents({
      address: usdc,
      abi: USDC_ABI,
      eventName,
      args: { authorizer: authorization.from, nonce: authorization.nonce },
      fromBlock,
      toBlock: lesser(fromBlock + LOG_PAGE_BLOCKS - 1n, last),
    });
    if (found !== undefined) return found.transactionHash;
  }
  return null;
}

/**
 * Whether an EVM account was ever used: it sent a transaction, holds USDC, or USDC moved from or to
 * it. The moves are searched over the whole chain where the node allows it (the embedded chain, a
 * node of one's own); a public node that refuses is asked for the recent pages only, so an account
 * used only on Base long ago that holds nothing now is not found there (it holds no money).
 */
export async function hasEvmActivity(client: PublicClient, usdc: Address, account: string): Promise<boolean> {
  const address = getAddress(account);
  if ((await client.getTransactionCount({ address })) > 0) return true;
  if ((await client.readContract({ address: usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [address] })) > 0n) return true;
  for (const args of [{ from: address }, { to: address }]) {
    if (await movedUsdc(client, usdc, args)) return true;
  }
  return false;
}

async function movedUsdc(client: PublicClient, usdc: Address, args: { from: Address } | { to: Address }): Promise<boolean> {
  const transfers = (fromBlock: bigint, toBlock?: bigint) =>
    client.getContractEvents({ address: usdc, abi: USDC_ABI, eventName: 'Transfer', args, fromBlock, toBlock });
  try {
    return (await transfers(0n)).length > 0;
  } catch {
    // Refused (or the node is down: then the pages below fail too, and say so).
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    for (let page = 0; page < RECENT_ACTIVITY_PAGES; page += 1) {
      const toBlock = latest - BigInt(page) * LOG_PAGE_BLOCKS;
      if (toBlock < 0n) break;
      const fromBlock = toBlock - LOG_PAGE_BLOCKS + 1n > 0n ? toBlock - LOG_PAGE_BLOCKS + 1n : 0n;
      if ((await transfers(fromBlock, toBlock)).length > 0) return true;
    }
    return false;
  }
}

/**
 * USDC that came to `wallet` from another account, read from the token's Transfer logs a page of
 * blocks at a time after `readThrough` (the last block an earlier round read), each with its block's
 * time. A first read (`readThrough` null) starts FIRST_READ_BLOCKS back from the newest block, not at
 * block 0, which no public Base RPC serves logs from in one call. A round reads at most
 * DEPOSIT_PAGES_PER_ROUND pages; an RPC error after some pages keeps what they found (a first page's
 * is thrown). Answers the last block read (null: none).
 */
export async function transfersTo(
  client: PublicClient,
  usdc: Address,
  wallet: Address,
  readThrough: bigint | null,
): Promise<{ transfers: IncomingTransfer[]; readThrough: bigint | null }> {
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  let from = readThrough === null ? (latest > FIRST_READ_BLOCKS ? latest - FIRST_READ_BLOCKS : 0n) : readThrough + 1n;
  const transfers: IncomingTransfer[] = [];
  let readUpTo: bigint | null = null;
  const blockTimes = new Map<bigint, number>();
  for (let page = 0; page < DEPOSIT_PAGES_PER_ROUND && from <= latest; page += 1) {
    const toBlock = lesser(from + LOG_PAGE_BLOCKS - 1n, latest);
    let found: IncomingTransfer[];
    try {
      const logs = await client.getContractEvents({
        address: usdc,
        abi: USDC_ABI,
        eventName: 'Transfer',
        args: { to: wallet },
        fromBlock: from,
        toBlock,
      });
      found = [];
      // Each transfer's place among its transaction's transfers to the wallet (0, 1, …): what keys a
      // deposit, not the log's index in its block, which a reorg that puts the transaction in another
      // block renumbers (the same deposit read again would then be counted twice).
      const placeInTransaction = new Map<string, number>();
      // Each log once (a node that repeats one in its answer must not make a second deposit of it).
      const once = [...new Map(logs.map((log) => [`${log.blockHash}:${log.logIndex}`, log])).values()];
      const inChainOrder = once.sort((a, b) =>
        a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
      );
      for (const log of inChainOrder) {
        const place = placeInTransaction.get(log.transactionHash) ?? 0;
        placeInTransaction.set(log.transactionHash, place + 1);
        const { from: sender, value } = log.args;
        if (sender === undefined || value === undefined || value === 0n || getAddress(sender) === wallet) continue;
        let time = blockTimes.get(log.blockNumber);
        if (time === undefined) {
          time = Number((await client.getBlock({ blockNumber: log.blockNumber })).timestamp);
          blockTimes.set(log.blockNumber, time);
        }
        found.push({ txSignature: log.transactionHash, transferIndex: place, from: getAddress(sender), amount: value, blockTime: time });
      }
    } catch (error) {
      if (page === 0) throw error;
      break;
    }
    transfers.push(...found);
    readUpTo = toBlock;
    from = toBlock + 1n;
  }
  return { transfers, readThrough: readUpTo };
}
