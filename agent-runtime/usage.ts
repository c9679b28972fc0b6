import type { Tiktoken } from 'js-tiktoken/lite' with { 'resolution-mode': 'import' };
import type { ConversationUsage } from './contract';

/**
 * Token usage of one conversation. With a language model the numbers are the API's `usage` fields,
 * summed over every request. Offline, the texts the policy stands for are counted with OpenAI's
 * `o200k_base` tokenizer (the GPT-4o family's, as `LLM_MODEL`'s default is), through js-tiktoken,
 * under the model name `offline`.
 */
let encoder: Tiktoken | undefined;

/** Tokens of a text under `o200k_base`. The ranks load on first use (about 0.5 s and 100 MB of heap). */
export function countTokens(text: string): number {
  if (!encoder) {
    // js-tiktoken's CommonJS builds, required only when the offline policy first counts.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const lite = require('js-tiktoken/lite') as { Tiktoken: typeof Tiktoken };
    const ranks = require('js-tiktoken/ranks/o200k_base') as ConstructorParameters<typeof Tiktoken>[0];
    /* eslint-enable @typescript-eslint/no-require-imports */
    encoder = new lite.Tiktoken(ranks);
  }
  return encoder.encode(text).length;
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

  /** Offline: the prompt the policy stood for and the text it produced, counted with the tokenizer. */
  addCounted(prompt: string, completion: string): void {
    this.add(countTokens(prompt), countTokens(completion));
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
