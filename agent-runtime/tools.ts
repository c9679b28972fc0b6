import type { ToolResult } from '../domain/tools/http-tool';
import type { ToolFunction } from '../domain/tools/types';

/**
 * Tools during a conversation. The engine asks `ConversationTools` (built by whoever runs the
 * conversation: the conversation activity, or the API process on a live call) for a node's tools
 * and to run one call; it numbers the calls, logs them, speaks an HTTP tool's `customMessage` first
 * and a short line when a result is slow, and hands the policy a `ToolSession`.
 */

export type { ToolFunction, ToolResult };

/** One tool call as the run keeps it (`logs.tool_calls[]`). */
export interface ToolCallLog {
  /** 1, 2, ... in the order the calls were made in the conversation. */
  sequence: number;
  tool_uuid: string;
  function: string;
  /** As the model gave them; credential values never appear here (they are added to headers, not arguments). */
  arguments: Record<string, unknown>;
  status: 'ok' | 'failed';
  status_code?: number;
  duration_ms: number;
  /** The start of what the model was told. */
  result_excerpt: string;
  /** ISO time the call started. */
  at: string;
  /** The node the agent was in. */
  node_id: string;
}

/** A `transfer_call` tool was called: the conversation hands the call to the workflow to transfer. */
export interface TransferRequest {
  /** The tool call's number in the conversation. */
  sequence: number;
  toolUuid: string;
  /** E.164 or a SIP URI. */
  destination: string;
  mode: 'blind' | 'warm';
  ringTimeoutSeconds: number;
  /** Warm transfers: what the person hears before the caller is joined (the tool's message, else a summary). */
  announcement?: string;
}

/**
 * What running a tool produced: `endCall` when the tool ends the call (the `end_call` type),
 * `transfer` when it asks to transfer it (`transfer_call`, with the message said first).
 */
export interface ToolOutcome {
  result: ToolResult;
  endCall?: { reason?: string; message?: string };
  transfer?: { request: Omit<TransferRequest, 'sequence' | 'toolUuid'>; message?: string };
}

export interface ToolInvocation {
  fn: ToolFunction;
  args: Record<string, unknown>;
  /** The call's number in the conversation (stable under a retry that replays the same turns). */
  sequence: number;
  gatheredContext: Record<string, unknown>;
}

/** What a node offers the model beside its edges: its tools, and its knowledge-base documents. */
export interface NodeTools {
  tool_uuids: readonly string[];
  document_uuids: readonly string[];
}

export interface ConversationTools {
  /** The node's tools (and its knowledge base's retrieval), as functions; empty when it has none. */
  forNode(node: NodeTools): ToolFunction[];
  invoke(invocation: ToolInvocation): Promise<ToolOutcome>;
}

/** What a policy uses during one turn. */
export interface ToolSession {
  readonly functions: ToolFunction[];
  /** Runs one call; never throws (a failure is a result with `ok: false`). */
  call(fn: ToolFunction, args: Record<string, unknown>): Promise<ToolResult>;
  /** An `end_call` tool was called: the call ends after this turn. */
  readonly endCall: ToolOutcome['endCall'] | undefined;
  /** A `transfer_call` tool was called: the conversation stops after this turn for the transfer. */
  readonly transfer: TransferRequest | undefined;
}

/** Most tool rounds in one turn before the model must answer without tools. */
export const MAX_TOOL_ROUNDS = 5;

/** Said when a tool's result is slow to come (after TOOL_DELAY_MS), so the caller hears no dead air. */
export const TOOL_DELAY_LINE = 'One moment, please.';
export const TOOL_DELAY_MS = 1_500;

/** The first characters of a result, for the run's log. */
export const resultExcerpt = (result: ToolResult): string => JSON.stringify(result).slice(0, 500);
