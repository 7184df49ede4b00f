import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { getBase58Decoder, type ReadonlyUint8Array } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { uiTokenAmount } from './rpc-shapes.js';

/**
 * A transaction's instructions in `jsonParsed` form, as a node gives them to explorers and wallets:
 * the programs it knows (System transfers, SPL Token transfers and mints, the associated token
 * account program, Memo) as `{program, programId, parsed}`, any other as `{programId, accounts,
 * data}` (base58), the way a node leaves what it cannot parse.
 */
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const MEMO_PROGRAMS = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

export interface CompiledInstruction {
  programAddressIndex: number;
  accountIndices?: readonly number[];
  data?: ReadonlyUint8Array;
}

const u64 = (data: Uint8Array, offset: number): bigint => new DataView(data.buffer, data.byteOffset + offset, 8).getBigUint64(0, true);

export function parsedInstruction(instruction: CompiledInstruction, keys: readonly string[]) {
  const programId = keys[instruction.programAddressIndex] ?? '';
  const accounts = (instruction.accountIndices ?? []).map((index) => keys[index] ?? '');
  const data = new Uint8Array(instruction.data ?? []);
  const parsed = parse(programId, accounts, data);
  if (parsed !== null) return { ...parsed, programId, stackHeight: null };
  return { programId, accounts, data: getBase58Decoder().decode(data), stackHeight: null };
}

function parse(programId: string, accounts: string[], data: Uint8Array): { program: string; parsed: unknown } | null {
  if (MEMO_PROGRAMS.has(programId)) {
    // Bytes that are no UTF-8 are left raw, as a node leaves them.
    try {
      return { program: 'spl-memo', parsed: new TextDecoder('utf-8', { fatal: true }).decode(data) };
    } catch {
      return null;
    }
  }
  if (programId === SYSTEM_PROGRAM_ADDRESS && data.length === 12 && new DataView(data.buffer, data.byteOffset).getUint32(0, true) === 2) {
    return {
      program: 'system',
      parsed: { type: 'transfer', info: { source: accounts[0], destination: accounts[1], lamports: u64(data, 4) } },
    };
  }
  if (programId === ASSOCIATED_TOKEN_PROGRAM && (data.length === 0 || data[0] === 0 || data[0] === 1)) {
    const [source, account, wallet, mint, systemProgram, tokenProgram] = accounts;
    return {
      program: 'spl-associated-token-account',
      parsed: { type: data[0] === 1 ? 'createIdempotent' : 'create', info: { source, account, wallet, mint, systemProgram, tokenProgram } },
    };
  }
  if (programId === TOKEN_PROGRAM_ADDRESS) {
    const [first, second, third, fourth] = accounts;
    switch (data[0]) {
      case 3:
        if (data.length !== 9) return null;
        return {
          program: 'spl-token',
          parsed: { type: 'transfer', info: { source: first, destination: second, authority: third, amount: u64(data, 1).toString() } },
        };
      case 12:
        if (data.length !== 10) return null;
        return {
          program: 'spl-token',
          parsed: {
            type: 'transferChecked',
            info: {
              source: first,
              mint: second,
              destination: third,
              authority: fourth,
              tokenAmount: uiTokenAmount(u64(data, 1), data[9]!),
            },
          },
        };
      case 14:
        if (data.length !== 10) return null;
        return {
          program: 'spl-token',
          parsed: {
            type: 'mintToChecked',
            info: { mint: first, account: second, mintAuthority: third, tokenAmount: uiTokenAmount(u64(data, 1), data[9]!) },
          },
        };
      default:
        return null;
    }
  }
  return null;
}
