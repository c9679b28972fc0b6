import type { TranscriptLine } from './contract';
import {
  coerce,
  type EdgeChoice,
  type ExtractionRequest,
  type Policy,
  type TurnDecision,
  type TurnRequest,
} from './policy';
import type { SpeechSink } from './party';
import type { ToolFunction, ToolResult, ToolSession } from './tools';
import { transferSummary } from './transfer-summary';
import { OFFLINE_MODEL, UsageMeter } from './usage';

/**
 * The deterministic policy used when no language model is configured:
 * - on entering a node the agent says the first sentence of the node's rendered prompt;
 * - once the callee has answered, it takes the first outgoing edge whose condition contains a word
 *   (3+ letters, not a stop word) of the callee's last reply, else the first outgoing edge; once the
 *   callee has asked not to be called again, an edge to an opt-out end node comes first;
 * - at an end node it says the first sentence of the rendered prompt;
 * - an extraction variable takes the initial-context value of the same name (coerced to its type),
 *   else null;
 * - the disposition is the first disposition code;
 * - tools: on entering a node, it calls each of the node's HTTP and calculator tools once, in order,
 *   with the arguments of the same name from the call's context (a tool missing a required argument
 *   is not called), and says what each answered after its first sentence; once the callee has
 *   answered, an `end_call` tool whose description shares a word with the callee's last reply is
 *   called (its reason: the tool's name) before any edge is considered; a `transfer_call` tool whose
 *   description shares a word with it comes first (a `dynamic` one passes the context's `destination`);
 * - knowledge base: once the callee has answered, a question (a reply with '?') at a node with
 *   documents is looked up with `retrieve_from_knowledge_base` (the reply is the query), and the
 *   agent says the sentence of the passages found that shares the most words with it, staying in
 *   the node; when nothing is found the edges are considered as usual;
 * - back from a transfer that did not connect, it says so with the reason before anything else;
 * - a warm transfer's summary for the person is built from the caller's last words and the facts
 *   gathered (`transferSummary`).
 * Usage: each turn counts the `o200k_base` tokens (`countTokens`) of the prompt it stands for (system prompt plus
 * the conversation so far, each message counted on its own plus one token per line break between them) and of
 * the text it says; extraction, disposition and transfer summaries cost nothing.
 */

const STOP_WORDS = new Set(['the', 'and', 'that', 'this', 'you', 'your', 'for', 'with', 'are', 'was', 'not', 'but']);

export const firstSentence = (text: string): string => {
  const trimmed = text.trim();
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(trimmed);
  return (match ? match[0] : trimmed).replace(/\s+/g, ' ').trim();
};

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];

const heardWords = (reply: string): Set<string> =>
  new Set(words(reply).filter((word) => word.length >= 3 && !STOP_WORDS.has(word)));

/** A word without its plural or verb ending, so "refunds" meets "refund". */
const stem = (word: string): string => word.replace(/(?:ies|es|s|ing|ed)$/, '') || word;

/** The sentence of the retrieved passages that shares the most words with the question. */
function answerFromPassages(question: string, data: unknown): string | undefined {
  const { results = [], documents = [] } = (data ?? {}) as {
    results?: { text?: unknown }[];
    documents?: { text?: unknown }[];
  };
  const passages = [...results, ...documents].map((passage) => passage.text).filter((text) => typeof text === 'string');
  const asked = new Set([...heardWords(question)].map(stem));
  let best: { sentence: string; shared: number } | undefined;
  for (const passage of passages) {
    for (const sentence of passage.match(/[^.!?\n]+[.!?]?/g) ?? []) {
      const shared = new Set(
        words(sentence)
          .map(stem)
          .filter((word) => asked.has(word)),
      ).size;
      if (shared > 0 && (!best || shared > best.shared)) best = { sentence: sentence.trim(), shared };
    }
  }
  return best?.sentence;
}

function chooseEdge(edges: EdgeChoice[], reply: string): EdgeChoice | undefined {
  const heard = heardWords(reply);
  return edges.find((choice) => words(choice.condition).some((word) => heard.has(word))) ?? edges[0];
}

/** The context values a tool's parameters name, or undefined when a required one is missing. */
function argumentsFromContext(fn: ToolFunction, context: Record<string, unknown>): Record<string, unknown> | undefined {
  const schema = fn.parameters as { properties?: Record<string, unknown>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties ?? {})) {
    if (context[name] !== undefined && context[name] !== null && context[name] !== '') args[name] = context[name];
  }
  return (schema.required ?? []).every((name) => name in args) ? args : undefined;
}

/** A tool's answer as a short spoken sentence. */
export function spokenResult(fn: ToolFunction, result: ToolResult): string {
  if (!result.ok) return `I could not get an answer from ${fn.name.replace(/_/g, ' ')}.`;
  const { data } = result;
  if (data === null || data === undefined || data === '') return `${fn.name.replace(/_/g, ' ')} is done.`;
  if (typeof data === 'string') return firstSentence(data);
  if (typeof data !== 'object') return firstSentence(JSON.stringify(data));
  const facts = Object.entries(data as Record<string, unknown>)
    .filter(([, value]) => value === null || typeof value !== 'object')
    .slice(0, 3)
    .map(([key, value]) => `${key.replace(/_/g, ' ')} is ${String(value)}`);
  return facts.length > 0 ? `${facts.join(', ')}.` : `${fn.name.replace(/_/g, ' ')} is done.`;
}

const promptMessages = (request: TurnRequest): string[] => [
  request.systemPrompt,
  ...request.history.map((line) => `${line.role}: ${line.text}`),
];

export class OfflinePolicy implements Policy {
  readonly usage = new UsageMeter(OFFLINE_MODEL);

  async turn(request: TurnRequest, speech: SpeechSink, tools?: ToolSession): Promise<TurnDecision> {
    let decision: TurnDecision;
    if (request.notice) {
      // Back from a transfer that did not connect: the caller hears why, then the call carries on.
      const line = `I could not put you through (${request.notice}). Let us carry on.`;
      speech.sentence(line);
      decision = { say: line };
    } else if (request.calleeRepliesInNode === 0) {
      const opening = firstSentence(request.nodePrompt) || request.node.data.name;
      speech.sentence(opening);
      const answers: string[] = [];
      for (const fn of tools?.functions ?? []) {
        const called = fn.definition.type === 'http_api' || fn.definition.type === 'calculator';
        const args = called ? argumentsFromContext(fn, request.context) : undefined;
        if (!args || !tools) continue;
        const answer = spokenResult(fn, await tools.call(fn, args));
        speech.sentence(answer);
        answers.push(answer);
      }
      decision = { say: [opening, ...answers].join(' ') };
    } else {
      const lastReply = request.history.filter((line) => line.role === 'user').at(-1)?.text ?? '';
      const heard = heardWords(lastReply);
      const endCall = tools?.functions.find(
        (fn) => fn.definition.type === 'end_call' && words(fn.description).some((word) => heard.has(word)),
      );
      const transfer = tools?.functions.find(
        (fn) => fn.definition.type === 'transfer_call' && words(fn.description).some((word) => heard.has(word)),
      );
      if (transfer && tools) {
        await tools.call(transfer, argumentsFromContext(transfer, request.context) ?? {});
        decision = {};
      } else if (endCall && tools) {
        await tools.call(
          endCall,
          endCall.definition.type === 'end_call' && endCall.definition.config.endCallReason
            ? { reason: endCall.name }
            : {},
        );
        decision = {};
      } else {
        // A question answered from the knowledge base keeps the agent in the node for the next one.
        const answered = await this.answerQuestion(lastReply, speech, tools);
        const optOutEdge = request.optOutHeard ? request.edges.find((choice) => choice.optOut) : undefined;
        decision = answered.say ? answered : { edge: (optOutEdge ?? chooseEdge(request.edges, lastReply))?.edge };
      }
    }
    this.usage.addCounted(promptMessages(request), decision.say ?? decision.edge?.data.label ?? '');
    return decision;
  }

  /** A question answered from the node's knowledge base; `{}` when it is no question or nothing was found. */
  private async answerQuestion(reply: string, speech: SpeechSink, tools?: ToolSession): Promise<TurnDecision> {
    const retrieval = tools?.functions.find((fn) => fn.definition.type === 'knowledge_base');
    if (!retrieval || !tools || !reply.includes('?')) return {};
    const result = await tools.call(retrieval, { query: reply });
    const answer = result.ok ? answerFromPassages(reply, result.data) : undefined;
    if (!answer) return {};
    speech.sentence(answer);
    return { say: answer };
  }

  closing(request: TurnRequest, speech: SpeechSink): Promise<string> {
    const text = firstSentence(request.nodePrompt);
    this.usage.addCounted(promptMessages(request), text);
    if (text) speech.sentence(text);
    return Promise.resolve(text);
  }

  extract(request: ExtractionRequest): Promise<Record<string, unknown>> {
    return Promise.resolve(
      Object.fromEntries(
        request.variables.map((variable) => [
          variable.name,
          coerce(request.initialContext[variable.name], variable.type),
        ]),
      ),
    );
  }

  transferSummary(history: TranscriptLine[], gathered: Record<string, unknown>): Promise<string> {
    return Promise.resolve(transferSummary(history, gathered));
  }

  dispose(codes: string[], _history: TranscriptLine[]): Promise<string> {
    return Promise.resolve(codes[0] ?? '');
  }
}
