import type { Response } from 'express';
import { yieldToWaitingRequests } from '../core/yield-turn.js';

/** How many items of a long list are serialized in one turn. */
const ITEMS_PER_TURN = 50;

/**
 * The JSON text of an answer, its long lists serialized a slice of items per turn: the dashboard and
 * the agents list of 1,000 agents are half a megabyte, and one JSON.stringify of them held the serving
 * thread 2 to 6 ms, so a payment arriving meanwhile waited that long. The text is the same as
 * JSON.stringify's (a property test holds them equal).
 */
export async function jsonInSlices(answer: Record<string, unknown>): Promise<string> {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(answer)) {
    if (Array.isArray(value) && value.length > ITEMS_PER_TURN) {
      const slices: string[] = [];
      for (let start = 0; start < value.length; start += ITEMS_PER_TURN) {
        await yieldToWaitingRequests();
        // Each slice as an array of its own, without its brackets: items JSON cannot say become null, as in any array.
        slices.push(JSON.stringify(value.slice(start, start + ITEMS_PER_TURN)).slice(1, -1));
      }
      parts.push(`${JSON.stringify(key)}:[${slices.join(',')}]`);
      continue;
    }
    const text = JSON.stringify(value) as string | undefined;
    // A field JSON cannot say (undefined, a function) is left out, as JSON.stringify leaves it out.
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** Sends a large answer as `res.json` would, serialized by `jsonInSlices`. */
export async function sendJsonInSlices(res: Response, answer: Record<string, unknown>): Promise<void> {
  const body = await jsonInSlices(answer);
  res.type('json').send(body);
}
