/** A sentence ends at `.`, `!`, `?` or `…` (closing quotes and brackets included) before whitespace, or at a line break. */
const SENTENCE_END = /[.!?…]+["'”’)\]]*\s+|\n+/;

/**
 * Cuts streamed text into sentences as it arrives, so that text-to-speech can start on the first
 * sentence while the language model is still writing the rest. `flush` hands over what is left.
 */
export class SentenceSplitter {
  private buffer = '';

  constructor(private readonly emit: (sentence: string) => void) {}

  push(text: string): void {
    this.buffer += text;
    for (let match = SENTENCE_END.exec(this.buffer); match; match = SENTENCE_END.exec(this.buffer)) {
      const end = match.index + match[0].length;
      const sentence = this.buffer.slice(0, end).trim();
      this.buffer = this.buffer.slice(end);
      if (sentence) this.emit(sentence);
    }
  }

  flush(): void {
    const rest = this.buffer.trim();
    this.buffer = '';
    if (rest) this.emit(rest);
  }
}
