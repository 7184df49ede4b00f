import { z } from 'zod';
import { address as toAddress } from '@solana/kit';

/** The parameter schemas that several methods of the embedded chain's JSON-RPC share. */

export const address = z.string().refine((text) => {
  try {
    toAddress(text);
    return true;
  } catch {
    return false;
  }
}, 'Invalid param: not a base58 address');
/** Everything here is final at once: every commitment is taken, and answered as `finalized`. */
export const commitment = z.enum(['processed', 'confirmed', 'finalized']).optional();
export const noParams = z.array(z.unknown()).max(1);
export const configOnly = z.tuple([]).rest(z.object({ commitment, minContextSlot: z.number().optional() }).loose());
export const accountConfig = z
  .object({
    encoding: z.enum(['base58', 'base64', 'base64+zstd', 'jsonParsed']).optional(),
    dataSlice: z.object({ offset: z.number().int().min(0), length: z.number().int().min(0) }).optional(),
    commitment,
  })
  .loose();
export type AccountConfig = z.infer<typeof accountConfig>;
