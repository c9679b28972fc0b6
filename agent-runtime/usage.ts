import type { ConversationUsage } from './contract';

/**
 * Token usage of one conversation. With a language model the numbers are the API's `usage` fields,
 * summed over every request. Offline, no tokenizer is involved: a text counts `ceil(characters / 4)`
 * tokens (the usual rule of thumb for English with OpenAI tokenizers), under the model name `offline`.
 */
export const approximateTokens = (text: string): number => Math.ceil(text.length / 4);

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

  /** Offline: the prompt the policy stood for and the text it produced, approximated. */
  addApproximate(prompt: string, completion: string): void {
    this.add(approximateTokens(prompt), approximateTokens(completion));
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
