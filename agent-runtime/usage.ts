import type { ConversationUsage } from './contract';
import { o200kCounter } from './token-counter';

/**
 * Token usage of one conversation. With a language model the numbers are the API's `usage` fields,
 * summed over every request. Offline, the texts the policy stands for are counted with OpenAI's
 * `o200k_base` tokenizer (the GPT-4o family's, as `LLM_MODEL`'s default is), through js-tiktoken,
 * under the model name `offline`.
 */

/** Counts of texts seen lately: a conversation's lines come back in the prompt of every later turn. */
const counted = new Map<string, number>();
const MAX_COUNTED = 4096;

/** Tokens of a text under `o200k_base`. The ranks load on first use (about 0.5 s and 100 MB of heap). */
export function countTokens(text: string): number {
  const known = counted.get(text);
  if (known !== undefined) return known;
  const count = o200kCounter().count(text);
  // Oldest first out (Map keeps insertion order).
  if (counted.size >= MAX_COUNTED) counted.delete(counted.keys().next().value as string);
  counted.set(text, count);
  return count;
}

export const OFFLINE_MODEL = 'offline';

export class UsageMeter {
  private promptTokens = 0;
  private completionTokens = 0;
  private totalTokens = 0;

  constructor(readonly model: string) {}

  add(promptTokens: number, completionTokens: number, totalTokens = promptTokens + completionTokens): void {
    this.promptTokens += promptTokens;
    this.completionTokens += completionTokens;
    this.totalTokens += totalTokens;
  }

  /**
   * Offline: the prompt the policy stood for (its messages, one line break between each) and the
   * text it produced. Each message is counted on its own, so a turn costs the tokenizer only what
   * is new in it rather than the whole conversation again.
   */
  addCounted(promptMessages: readonly string[], completion: string): void {
    const prompt = promptMessages.reduce((sum, message) => sum + countTokens(message), 0);
    this.add(prompt + Math.max(promptMessages.length - 1, 0), countTokens(completion));
  }

  result(): ConversationUsage {
    return {
      model: this.model,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      totalTokens: this.totalTokens,
    };
  }
}
