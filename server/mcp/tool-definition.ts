import type { CallToolResult, InputRequiredResult, McpServer, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { CofferClient } from '../client/coffer-client.js';
import type { OwnerDecisions } from './owner-decision.js';
import type { PurchasesUnderWay } from './purchases-under-way.js';

export interface ToolContext {
  api: CofferClient;
  /** The held payments this bridge follows while the owner decides. */
  decisions: OwnerDecisions;
  /** The fetch_paid purchases under way, joined by the same call asked again. */
  underWay: PurchasesUnderWay;
  /** How long one call waits for the owner before answering that the payment still waits. */
  heldWaitMs: number;
  agentId: string;
  owner: string;
  apiKey: string;
  /** Why this bridge has no agent to act as (its credentials missing): every tool answers it. */
  notConfigured?: string;
}

/** One call of a tool: the bridge's context, the server it is served by and the call's own context. */
export interface ToolCall {
  ctx: ToolContext;
  server: McpServer;
  extra: ServerContext;
}

export type ToolResult = CallToolResult | InputRequiredResult;

type InputSchema = z.ZodObject | undefined;
type InputOf<S extends InputSchema> = S extends z.ZodObject ? z.output<S> : Record<string, never>;

export const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
export const CHANGES_STATE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

interface ToolSpec<S extends InputSchema> {
  name: string;
  description: string;
  /** Left out for a tool that takes nothing. */
  inputSchema?: S;
  outputSchema: z.ZodType;
  annotations: ToolAnnotations;
}

/** A tool as it is written: its input typed by its schema. */
export type ToolDefinition<S extends InputSchema> = ToolSpec<S> &
  (
    | {
        /** The tool's answer, sent as text and structured content; a thrown error is its isError result. */
        answer: (input: InputOf<S>, call: ToolCall) => Promise<object>;
      }
    | {
        /** A result the tool shapes itself (a held payment's round or progress), sent as it is. */
        respond: (input: InputOf<S>, call: ToolCall) => Promise<ToolResult>;
      }
  );

/** A tool in the table, its input type set aside: `args` are what the SDK parsed with its inputSchema. */
export type Tool = ToolSpec<InputSchema> &
  ({ answer: (args: unknown, call: ToolCall) => Promise<object> } | { respond: (args: unknown, call: ToolCall) => Promise<ToolResult> });

export function defineTool<S extends InputSchema>(tool: ToolDefinition<S>): Tool {
  // The SDK parses a call's arguments with inputSchema (and refuses them when they do not fit)
  // before the handler runs: what reaches it is InputOf<S>.
  const input = (args: unknown) => args as InputOf<S>;
  if ('answer' in tool) return { ...tool, answer: (args, call) => tool.answer(input(args), call) };
  return { ...tool, respond: (args, call) => tool.respond(input(args), call) };
}
