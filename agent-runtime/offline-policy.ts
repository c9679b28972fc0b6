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
 * - the disposition is the first disposition code.
 * Usage: each turn counts the `o200k_base` tokens (`countTokens`) of the prompt it stands for (system prompt plus
 * the conversation so far, each message counted on its own plus one token per line break between them) and of
 * the text it says; extraction and disposition cost nothing.
 */

const STOP_WORDS = new Set(['the', 'and', 'that', 'this', 'you', 'your', 'for', 'with', 'are', 'was', 'not', 'but']);

export const firstSentence = (text: string): string => {
  const trimmed = text.trim();
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(trimmed);
  return (match ? match[0] : trimmed).replace(/\s+/g, ' ').trim();
};

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];

function chooseEdge(edges: EdgeChoice[], reply: string): EdgeChoice | undefined {
  const heard = new Set(words(reply).filter((word) => word.length >= 3 && !STOP_WORDS.has(word)));
  return edges.find((choice) => words(choice.condition).some((word) => heard.has(word))) ?? edges[0];
}

const promptMessages = (request: TurnRequest): string[] => [
  request.systemPrompt,
  ...request.history.map((line) => `${line.role}: ${line.text}`),
];

export class OfflinePolicy implements Policy {
  readonly usage = new UsageMeter(OFFLINE_MODEL);

  turn(request: TurnRequest, speech: SpeechSink): Promise<TurnDecision> {
    let decision: TurnDecision;
    if (request.calleeRepliesInNode === 0) {
      decision = { say: firstSentence(request.nodePrompt) || request.node.data.name };
    } else {
      const lastReply = request.history.filter((line) => line.role === 'user').at(-1)?.text ?? '';
      const optOutEdge = request.optOutHeard ? request.edges.find((choice) => choice.optOut) : undefined;
      decision = { edge: (optOutEdge ?? chooseEdge(request.edges, lastReply))?.edge };
    }
    this.usage.addCounted(promptMessages(request), decision.say ?? decision.edge?.data.label ?? '');
    if (decision.say) speech.sentence(decision.say);
    return Promise.resolve(decision);
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

  dispose(codes: string[], _history: TranscriptLine[]): Promise<string> {
    return Promise.resolve(codes[0] ?? '');
  }
}
