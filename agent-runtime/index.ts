import { renderTemplate } from '../api/services/agents/templates';
import type { ConversationResult, Converse, TranscriptLine } from './contract';
import { ConversationGraph, functionName, type ConversationNode } from './graph';
import { LlmPolicy } from './llm-policy';
import { OfflinePolicy } from './offline-policy';
import type { Policy, TurnRequest } from './policy';
import { SimulatedCallee } from './simulated-callee';

export type * from './contract';
export { LlmRequestError } from './llm-policy';
export { formatTranscript } from './policy';

/**
 * The conversation engine. From the start node, turn by turn: the agent (language model or offline
 * policy) speaks from the node's rendered prompt (global prompt first when the node adds it), the
 * callee answers, and the agent takes an outgoing edge (its `transition_speech` is spoken) or keeps
 * talking. Leaving a node with `extraction_enabled` fills its extraction variables into the gathered
 * context. The call ends at an end node (or a node with no outgoing edge) after its last words, when
 * the simulated clock passes `maxDurationSeconds` ('max_duration') or the callee's `talkSeconds`
 * ('callee_hangup'), or after `MAX_TURNS` agent turns ('max_duration', the guard against cycles).
 */

/** Agent turns before a call is cut off as overrunning, whatever the clock says. */
export const MAX_TURNS = 50;

/** Simulated seconds an utterance takes: a one-second pause plus 2.5 words a second (150 per minute). */
export const utteranceSeconds = (text: string): number =>
  1 + Math.ceil(text.trim().split(/\s+/).filter(Boolean).length / 2.5);

/** The disposition when the agent has no codes to choose from. */
const DEFAULT_DISPOSITIONS: Record<ConversationResult['endedBy'], string> = {
  end_node: 'completed',
  max_duration: 'call_duration_exceeded',
  callee_hangup: 'user_hangup',
};

export const converse: Converse = async (input, deps) => {
  const graph = new ConversationGraph(input.definition);
  const policy: Policy = deps.llm ? new LlmPolicy(deps.llm) : new OfflinePolicy();
  const callee = new SimulatedCallee(input.initialContext);
  const startedAt = (deps.now ?? (() => new Date()))();
  const variables = { ...input.templateContextVariables, ...input.initialContext };
  const gatheredContext: Record<string, unknown> = {};
  const transcript: TranscriptLine[] = [];
  const nodePath: string[] = [];
  let elapsed = 0;
  let endedBy: ConversationResult['endedBy'] | undefined;

  const now = () => new Date(startedAt.getTime() + elapsed * 1000);
  const render = (template: string) =>
    renderTemplate(template, { initialContext: variables, gatheredContext, now: now() });
  const limits: [number, ConversationResult['endedBy']][] = [
    [input.maxDurationSeconds, 'max_duration'],
    [input.callee.talkSeconds, 'callee_hangup'],
  ];
  /** The limit the clock has passed (the earlier one if both), if any. */
  const overrun = () => limits.filter(([limit]) => elapsed > limit).sort(([a], [b]) => a - b)[0]?.[1] ?? endedBy;
  /** Speaks a line unless the call is already over; false (and endedBy set) when it is. */
  const say = (role: TranscriptLine['role'], text: string): boolean => {
    endedBy = overrun();
    if (endedBy) return false;
    if (text.trim() === '') return true;
    transcript.push({ at: now().toISOString(), role, text: text.trim() });
    elapsed += utteranceSeconds(text);
    return true;
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
      })),
      history: [...transcript],
      calleeRepliesInNode,
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

  let node = graph.start;
  nodePath.push(node.id);
  let calleeReplies = 0;
  let turns = 0;
  const { greeting, greeting_type } = node.data;
  if (greeting && greeting_type === 'text' && say('assistant', render(greeting)) && say('user', callee.reply())) {
    calleeReplies = 1;
  }
  while (!endedBy) {
    if (graph.isTerminal(node)) {
      if (say('assistant', await policy.closing(request(node, calleeReplies)))) endedBy = 'end_node';
      break;
    }
    if (turns >= MAX_TURNS) {
      endedBy = 'max_duration';
      break;
    }
    if ((endedBy = overrun())) break;
    turns += 1;
    const decision = await policy.turn(request(node, calleeReplies));
    if (decision.say && !say('assistant', decision.say)) break;
    if (decision.edge) {
      await extract(node);
      const speech = decision.edge.data.transition_speech;
      if (speech && decision.edge.data.transition_speech_type !== 'audio' && !say('assistant', render(speech))) break;
      node = graph.target(decision.edge);
      nodePath.push(node.id);
      calleeReplies = 0;
      continue;
    }
    if (!say('user', callee.reply())) break;
    calleeReplies += 1;
  }
  // The node the call ended in gets its extraction too, however the call ended.
  await extract(node);

  const finalEndedBy = endedBy ?? 'max_duration';
  const extracted = gatheredContext.call_disposition;
  let disposition: string;
  if (typeof extracted === 'string' && extracted.trim() !== '') disposition = extracted.trim();
  else if (input.dispositionCodes.length > 0)
    disposition = await policy.dispose(input.dispositionCodes, transcript, finalEndedBy);
  else disposition = DEFAULT_DISPOSITIONS[finalEndedBy];

  const cap =
    finalEndedBy === 'end_node' ? Infinity : (limits.find(([, reason]) => reason === finalEndedBy)?.[0] ?? Infinity);
  return {
    transcript,
    gatheredContext,
    disposition,
    endedBy: finalEndedBy,
    nodePath,
    usage: policy.usage.result(),
    durationSeconds: Math.min(elapsed, Math.max(0, cap)),
  };
};
