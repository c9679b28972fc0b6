import { renderTemplate } from '../domain/agents/templates';
import type { ConversationResult, Converse, TranscriptLine } from './contract';
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

/** The disposition of a call handed to a person. */
export const TRANSFERRED = 'transferred';

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
  const graph = new ConversationGraph(input.definition);
  const policy: Policy = deps.llm ? new LlmPolicy(deps.llm) : new OfflinePolicy();
  const { resume } = input;
  const previous = resume?.previous;
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
  const variables = { ...input.templateContextVariables, ...input.initialContext };
  const gatheredContext: Record<string, unknown> = { ...previous?.gatheredContext };
  const transcript: TranscriptLine[] = [...(previous?.transcript ?? [])];
  const nodePath: string[] = [...(previous?.nodePath ?? [])];
  let endedBy: EndedBy | undefined;
  let optOut: ConversationResult['optOut'] = previous?.optOut;
  const toolCalls: ToolCallLog[] = (previous?.toolCalls ?? []).map((call) =>
    resume && call.sequence === previous?.transfer?.sequence
      ? { ...call, status: 'failed', result_excerpt: resultExcerpt({ ok: false, error: resume.transferFailed }) }
      : call,
  );
  let transferAsked: TransferRequest | undefined;
  const transferAttempts = resume?.attempts ?? 0;
  /** The node's tools; transfer tools only while the call may try another transfer. */
  const toolsOf = (node: ConversationNode) =>
    (deps.tools?.forNode(node.data.tool_uuids) ?? []).filter(
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
          transferAsked = { ...outcome.transfer.request, sequence, toolUuid: fn.toolUuid };
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

  let node = previous ? graph.node(nodePath.at(-1)) : graph.start;
  if (!previous) nodePath.push(node.id);
  let calleeReplies = 0;
  let turns = 0;
  /** Told to the policy on its next turn: why the transfer did not connect. */
  let notice = resume ? resume.transferFailed : undefined;
  if (previous) {
    // Back from a transfer: the agent speaks first, in the node it transferred from.
    calleeReplies = 1;
  } else {
    const { greeting, greeting_type } = node.data;
    if (greeting && greeting_type === 'text' && !(await say(node, render(greeting))).over) {
      if (await hear(node)) calleeReplies = 1;
    }
  }
  while (!endedBy) {
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
    transcript,
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
  return result;
};
