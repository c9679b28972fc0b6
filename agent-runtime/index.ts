import { renderTemplate } from '../domain/agents/templates';
import { TRANSFERRED } from '../domain/runs/types';
import type {
  ConversationCheckpoint,
  ConversationDeps,
  ConversationInput,
  ConversationResult,
  ConversationStep,
  Converse,
  TranscriptEntry,
  TranscriptLine,
} from './contract';
import { ConversationGraph, functionName, type ConversationNode } from './graph';
import { LlmPolicy } from './llm-policy';
import { OfflinePolicy } from './offline-policy';
import { isOptOutRequest, OPT_OUT_CLOSING } from './opt-out';
import type { AgentReply, ConversationParty, EndedBy, Spoken } from './party';
import type { Policy, TurnRequest } from './policy';
import { SimulatedParty } from './simulated-party';
import {
  resultExcerpt,
  TOOL_DELAY_LINE,
  TOOL_DELAY_MS,
  type ToolCallLog,
  type ToolOutcome,
  type ToolSession,
  type TransferRequest,
} from './tools';

export type * from './contract';
export type * from './party';
export { LlmRequestError } from './llm-policy';
export { formatTranscript } from './policy';
export { utteranceSeconds } from './simulated-party';
export { TextParty, type ReplyPieces, type TextChatInput } from './text-party';

/**
 * The conversation engine. From the start node, turn by turn: the agent (language model or offline
 * policy) speaks from the node's rendered prompt (global prompt first when the node adds it), the
 * other party answers, and the agent takes an outgoing edge (its `transition_speech` is spoken) or
 * keeps talking. Leaving a node with `extraction_enabled` fills its extraction variables into the
 * gathered context. The call ends at an end node (or a node with no outgoing edge) after its last
 * words, when the party says the call is over (the simulated clock passes `maxDurationSeconds` or
 * the callee's `talkSeconds`; on a live call: hang-up, `max_call_duration`, the caller idle), or
 * after `MAX_TURNS` agent turns ('max_duration', the guard against cycles).
 *
 * The party is the simulated callee of `input.callee`, or the live call of `deps.party`. On a live
 * call a reply the caller interrupts is cut short: the transcript keeps what was said, an edge the
 * agent chose is still taken (without its transition speech), and the agent listens before it
 * speaks again.
 */

/** Agent turns before a call is cut off as overrunning, whatever the clock says. */
export const MAX_TURNS = 50;

/** What the agent says when a live caller has been silent for `max_user_idle_timeout`. */
export const IDLE_REMINDER = 'Are you still there?';

/** Transfers one call may try; past them the node's transfer tools are no longer offered. */
export const MAX_TRANSFER_ATTEMPTS = 2;

/** The disposition when the agent has no codes to choose from (dograh's EndTaskReason values). */
const DEFAULT_DISPOSITIONS: Record<EndedBy, string> = {
  end_node: 'completed',
  max_duration: 'call_duration_exceeded',
  callee_hangup: 'user_hangup',
  user_idle: 'user_idle_max_duration_exceeded',
  error: 'pipeline_error',
  voicemail: 'voicemail_left',
  transfer: TRANSFERRED,
};

export const converse: Converse = async (input, deps) => {
  const step = await converseStep(input, deps);
  if ('paused' in step) throw new Error('The conversation paused, but its party cannot be waited for');
  return step.ended;
};

/**
 * The engine as `converse` runs it, able to pause: when the party has no answer yet (a text chat
 * waiting for the person's next message, `Spoken.awaiting`) the walk stops and returns where it
 * stands. `deps.resume` continues a paused walk: the party is listened to first, as the walk
 * would have done, then the agent takes its turn.
 */
export const converseStep = async (input: ConversationInput, deps: ConversationDeps): Promise<ConversationStep> => {
  const graph = new ConversationGraph(input.definition);
  const policy: Policy = deps.llm ? new LlmPolicy(deps.llm) : new OfflinePolicy();
  /** A call back from a transfer that did not connect: its conversation carries on. */
  const afterTransfer = input.resume;
  const previous = afterTransfer?.previous;
  if (previous)
    policy.usage.add(previous.usage.promptTokens, previous.usage.completionTokens, previous.usage.totalTokens);
  const party: ConversationParty =
    deps.party ??
    new SimulatedParty({
      startedAt: (deps.now ?? (() => new Date()))(),
      initialContext: input.initialContext,
      maxDurationSeconds: input.maxDurationSeconds,
      talkSeconds: input.callee.kind === 'simulated' ? input.callee.talkSeconds : input.maxDurationSeconds,
      ...(previous
        ? {
            resumeAt: {
              elapsedSeconds: previous.durationSeconds ?? 0,
              calleeReplies: previous.transcript.filter((line) => line.role === 'user').length,
            },
          }
        : {}),
    });
  /** A paused walk (a text chat between messages) to continue. */
  const checkpoint = deps.resume;
  const variables = { ...input.templateContextVariables, ...input.initialContext };
  const gatheredContext: Record<string, unknown> = { ...(checkpoint?.gatheredContext ?? previous?.gatheredContext) };
  const transcript: TranscriptLine[] = checkpoint
    ? [...checkpoint.transcript]
    : (previous?.transcript ?? []).filter((line): line is TranscriptLine => line.role !== 'tool');
  const nodePath: string[] = [...(checkpoint?.nodePath ?? previous?.nodePath ?? [])];
  let endedBy: EndedBy | undefined;
  let optOut: ConversationResult['optOut'] = checkpoint?.optOut ?? previous?.optOut;
  const toolCalls: ToolCallLog[] = checkpoint
    ? [...checkpoint.toolCalls]
    : (previous?.toolCalls ?? []).map((call) =>
        afterTransfer && call.sequence === previous?.transfer?.sequence
          ? {
              ...call,
              status: 'failed',
              result_excerpt: resultExcerpt({ ok: false, error: afterTransfer.transferFailed }),
            }
          : call,
      );
  /** The party has no answer yet: the walk stops where it stands. */
  let paused = false;
  if (checkpoint) {
    policy.usage.add(checkpoint.usage.promptTokens, checkpoint.usage.completionTokens, checkpoint.usage.totalTokens);
  }
  let transferAsked: TransferRequest | undefined;
  const transferAttempts = afterTransfer?.attempts ?? 0;
  /** The node's tools; transfer tools only while the call may try another transfer. */
  const toolsOf = (node: ConversationNode) =>
    (deps.tools?.forNode(node.data) ?? []).filter(
      (fn) => fn.definition.type !== 'transfer_call' || transferAttempts < MAX_TRANSFER_ATTEMPTS,
    );

  const render = (template: string) =>
    renderTemplate(template, { initialContext: variables, gatheredContext, now: party.now() });
  /** Keeps what was said; false (and endedBy set) when the call is over. */
  const record = (spoken: Spoken): boolean => {
    if (spoken.line) transcript.push(spoken.line);
    if (spoken.line?.role === 'user' && isOptOutRequest(spoken.line.text)) optOut ??= 'phrase';
    if (spoken.over) endedBy = spoken.over;
    return !spoken.over;
  };
  const replyIn = (node: ConversationNode): AgentReply => party.reply({ interruptible: node.data.allow_interrupt });
  /** Says a fixed text (greeting, transition speech); false when the call is over. */
  const say = async (node: ConversationNode, text: string): Promise<Spoken> => {
    const reply = replyIn(node);
    if (text.trim()) reply.sentence(text.trim());
    const spoken = await reply.finish();
    record(spoken);
    return spoken;
  };
  /** The caller's next words; a silent caller is asked whether they are still there. False when the call is over. */
  const hear = async (node: ConversationNode): Promise<boolean> => {
    for (;;) {
      const heard = await party.listen();
      if (heard.awaiting) {
        paused = true;
        return false;
      }
      if (!heard.idle) return record(heard);
      if ((await say(node, IDLE_REMINDER)).over) return false;
    }
  };
  const request = (node: ConversationNode, calleeRepliesInNode: number): TurnRequest => {
    const nodePrompt = render(node.data.prompt);
    const globalPrompt = graph.globalPromptFor(node);
    return {
      node,
      nodePrompt,
      systemPrompt: globalPrompt ? `${render(globalPrompt)}\n\n${nodePrompt}` : nodePrompt,
      edges: graph.edgesFrom(node).map((edge) => ({
        edge,
        functionName: functionName(edge.data.label),
        condition: render(edge.data.condition),
        optOut: graph.target(edge).data.opt_out,
      })),
      history: [...transcript],
      calleeRepliesInNode,
      optOutHeard: optOut !== undefined,
      tools: toolsOf(node),
      context: { ...variables, ...gatheredContext },
    };
  };
  /**
   * The node's tools for one turn: each call numbered and logged; an HTTP tool's `customMessage` is
   * said before its request, and on a live call a slow result gets a short line so the caller hears
   * no dead air.
   */
  const toolSession = (node: ConversationNode, speech: AgentReply): ToolSession => {
    let endCall: ToolOutcome['endCall'];
    return {
      functions: toolsOf(node),
      get endCall() {
        return endCall;
      },
      get transfer() {
        return transferAsked;
      },
      call: async (fn, args) => {
        const tools = deps.tools;
        const sequence = toolCalls.length + 1;
        const started = party.now();
        const startedMs = Date.now();
        const placeholder: ToolCallLog = {
          sequence,
          tool_uuid: fn.toolUuid,
          function: fn.name,
          arguments: args,
          status: 'failed',
          duration_ms: 0,
          result_excerpt: '',
          at: started.toISOString(),
          node_id: node.id,
        };
        toolCalls.push(placeholder);
        if (fn.definition.type === 'http_api' && fn.definition.config.customMessage) {
          speech.sentence(render(fn.definition.config.customMessage));
        }
        const slow = speech.streaming ? setTimeout(() => speech.sentence(TOOL_DELAY_LINE), TOOL_DELAY_MS) : undefined;
        let outcome: ToolOutcome;
        try {
          outcome = tools
            ? await tools.invoke({ fn, args, sequence, gatheredContext: { ...gatheredContext } })
            : { result: { ok: false, error: 'tools are not available in this conversation' } };
        } catch (error) {
          outcome = { result: { ok: false, error: (error as Error).message } };
        } finally {
          clearTimeout(slow);
        }
        Object.assign(placeholder, {
          status: outcome.result.ok ? 'ok' : 'failed',
          ...(outcome.result.status_code === undefined ? {} : { status_code: outcome.result.status_code }),
          duration_ms: Date.now() - startedMs,
          result_excerpt: resultExcerpt(outcome.result),
        });
        if (outcome.endCall) endCall = outcome.endCall;
        if (outcome.transfer && !transferAsked) {
          if (outcome.transfer.message) speech.sentence(render(outcome.transfer.message));
          const asked = outcome.transfer.request;
          transferAsked = {
            ...asked,
            sequence,
            toolUuid: fn.toolUuid,
            ...(asked.mode === 'warm'
              ? { announcement: asked.announcement || (await policy.transferSummary([...transcript], gatheredContext)) }
              : {}),
          };
        }
        return outcome.result;
      },
    };
  };
  const extract = async (node: ConversationNode) => {
    const { extraction_enabled, extraction_variables, extraction_prompt } = node.data;
    if (!extraction_enabled || extraction_variables.length === 0) return;
    Object.assign(
      gatheredContext,
      await policy.extract({
        node,
        variables: extraction_variables,
        instructions: extraction_prompt ? render(extraction_prompt) : undefined,
        history: [...transcript],
        initialContext: variables,
      }),
    );
  };

  let node = checkpoint ? graph.node(checkpoint.nodeId) : previous ? graph.node(nodePath.at(-1)) : graph.start;
  let calleeReplies = checkpoint?.calleeRepliesInNode ?? 0;
  let turns = checkpoint?.turns ?? 0;
  /** Told to the policy on its next turn: why the transfer did not connect. */
  let notice = afterTransfer ? afterTransfer.transferFailed : undefined;
  if (checkpoint) {
    if (await hear(node)) calleeReplies += 1;
  } else if (previous) {
    // Back from a transfer: the agent speaks first, in the node it transferred from.
    calleeReplies = 1;
  } else {
    nodePath.push(node.id);
    const { greeting, greeting_type } = node.data;
    if (greeting && greeting_type === 'text' && !(await say(node, render(greeting))).over) {
      if (await hear(node)) calleeReplies = 1;
    }
  }
  while (!endedBy && !paused) {
    if (node.type === 'endCall' && node.data.opt_out) optOut ??= 'node';
    // An opt-out with no opt-out end to go to: the agent says it understood and the call ends.
    if (optOut && !graph.isTerminal(node) && !graph.edgesFrom(node).some((edge) => graph.target(edge).data.opt_out)) {
      if (!(await say(node, OPT_OUT_CLOSING)).over) endedBy = 'end_node';
      break;
    }
    if (graph.isTerminal(node)) {
      const reply = replyIn(node);
      await policy.closing(request(node, calleeReplies), reply);
      if (record(await reply.finish())) endedBy = 'end_node';
      break;
    }
    if (turns >= MAX_TURNS) {
      endedBy = 'max_duration';
      break;
    }
    if ((endedBy = party.over())) break;
    turns += 1;
    const reply = replyIn(node);
    const tools = toolSession(node, reply);
    const decision = await policy.turn(
      { ...request(node, calleeReplies), ...(notice ? { notice } : {}) },
      reply,
      tools,
    );
    notice = undefined;
    if (tools.transfer) {
      // The call leaves the conversation for the transfer: its message (said with the turn) first.
      if (record(await reply.finish())) endedBy = 'transfer';
      break;
    }
    if (tools.endCall) {
      const { reason, message } = tools.endCall;
      if (message) reply.sentence(render(message));
      if (reason) gatheredContext.call_disposition = reason;
      if (record(await reply.finish())) endedBy = 'end_node';
      break;
    }
    const spoken = await reply.finish();
    if (!record(spoken)) break;
    if (decision.edge) {
      await extract(node);
      const speech = decision.edge.data.transition_speech;
      const interrupted = spoken.interrupted === true;
      if (!interrupted && speech && decision.edge.data.transition_speech_type !== 'audio') {
        const transition = await say(node, render(speech));
        if (transition.over) break;
      }
      node = graph.target(decision.edge);
      nodePath.push(node.id);
      calleeReplies = 0;
      // Interrupted: the caller is talking, so the agent hears them out before it speaks again.
      if (!interrupted) continue;
    }
    if (!(await hear(node))) break;
    calleeReplies += 1;
  }
  if (paused) {
    const checkpoint: ConversationCheckpoint = {
      nodeId: node.id,
      calleeRepliesInNode: calleeReplies,
      turns,
      transcript,
      gatheredContext,
      nodePath,
      toolCalls,
      usage: policy.usage.result(),
      ...(optOut ? { optOut } : {}),
    };
    return { paused: checkpoint };
  }
  // The node the call ended in gets its extraction too, however the call ended.
  await extract(node);

  const finalEndedBy = endedBy ?? 'max_duration';
  const extracted = gatheredContext.call_disposition;
  let disposition: string;
  // A transfer that connects makes the call `transferred`; one that does not carries the conversation on.
  if (finalEndedBy === 'transfer') disposition = TRANSFERRED;
  else if (typeof extracted === 'string' && extracted.trim() !== '') disposition = extracted.trim();
  else if (input.dispositionCodes.length > 0)
    disposition = await policy.dispose(input.dispositionCodes, transcript, finalEndedBy);
  else disposition = optOut ? 'opt_out' : DEFAULT_DISPOSITIONS[finalEndedBy];

  const result: ConversationResult = {
    transcript: withToolEvents(transcript, toolCalls),
    gatheredContext,
    disposition,
    endedBy: finalEndedBy,
    nodePath,
    usage: policy.usage.result(),
    durationSeconds: party.durationSeconds(finalEndedBy),
    ...(optOut ? { optOut } : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(finalEndedBy === 'transfer' && transferAsked ? { transfer: transferAsked } : {}),
  };
  return { ended: result };
};

/** A tool call as a transcript line: `function(arguments) → ok 200`, arguments cut short. */
export function toolEvent(call: ToolCallLog): TranscriptEntry {
  const args = JSON.stringify(call.arguments);
  const shown = args.length > 200 ? `${args.slice(0, 200)}…` : args;
  const code = call.status_code === undefined ? '' : ` ${call.status_code}`;
  return {
    at: call.at,
    role: 'tool',
    text: `${call.function}(${shown}) → ${call.status}${code}`,
    tool_call: call.sequence,
  };
}

/** The lines with the tool calls between them, in time order (a call after the lines that began before it). */
function withToolEvents(lines: TranscriptLine[], calls: ToolCallLog[]): TranscriptEntry[] {
  if (calls.length === 0) return lines;
  const merged: TranscriptEntry[] = [];
  let next = 0;
  for (const line of lines) {
    while (next < calls.length && (calls[next] as ToolCallLog).at < line.at)
      merged.push(toolEvent(calls[next++] as ToolCallLog));
    merged.push(line);
  }
  while (next < calls.length) merged.push(toolEvent(calls[next++] as ToolCallLog));
  return merged;
}
