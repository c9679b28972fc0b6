import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ConversationResult, LlmSettings, TranscriptLine } from './contract';
import type { SpeechSink } from './party';
import {
  coerce,
  formatTranscript,
  type ExtractionRequest,
  type Policy,
  type TurnDecision,
  type TurnRequest,
} from './policy';
import { SentenceSplitter } from './sentences';
import { clipSummary, transferSummary } from './transfer-summary';
import { MAX_TOOL_ROUNDS, type ToolFunction, type ToolSession } from './tools';
import { UsageMeter } from './usage';

/**
 * The language-model policy, over any OpenAI-compatible chat completions API (`LLM_BASE_URL`,
 * `LLM_API_KEY`, `LLM_MODEL`), one request per decision:
 * - a turn sends the system prompt (global + node prompt + short call instructions) and the
 *   conversation as assistant/user messages, with one function per outgoing edge (named after its
 *   label, described by its condition). Text in the answer is spoken; a call to an edge's function
 *   takes that edge (after the text, if both). A call to an unknown function is ignored. On a live
 *   call (a streaming speech sink) turns and closings are streamed (`stream: true`, usage in the
 *   last chunk) and each sentence is spoken as soon as it is complete; a streamed text chat (a sink
 *   that takes tokens) streams them too, and gets each piece of text as it arrives.
 * - an end node sends the same without tools; the answer's text is the agent's last words.
 * - extraction forces an `extract_variables` function whose parameters are the node's variables
 *   (each nullable), with the transcript as the user message; values are coerced to their types.
 * - the disposition forces a `set_disposition` function whose `code` is an enum of the codes; an
 *   answer outside the codes falls back to the first code.
 * - a warm transfer's summary for the person sends the transcript and the gathered facts, asking for
 *   one or two sentences; a failed, slow or empty answer falls back to `transferSummary`.
 * Usage is summed from every response's `usage` field. A failed request throws `LlmRequestError`.
 */

export class LlmRequestError extends Error {
  override readonly name = 'LlmRequestError';
}

const CALL_INSTRUCTIONS = `You are the agent on a phone call. Reply with what you say next: one or two short spoken
sentences, no markup. When the condition of one of your functions holds, call that function (you may say a
short sentence too).`;

const SUMMARY_INSTRUCTIONS = `You are handing a phone caller over to a colleague. Below is the call so far. Write what
you say to the colleague before the caller is put through: one or two short spoken sentences saying who is calling
(when known) and what they need. No greeting, no markup.`;
const SUMMARY_MAX_TOKENS = 120;
const SUMMARY_TIMEOUT_MS = 8_000;

const toMessages = (history: TranscriptLine[]): ChatCompletionMessageParam[] =>
  history.map((line) => ({ role: line.role, content: line.text }));

const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false };

interface FunctionCall {
  id: string;
  name: string;
  arguments: string;
}

export class LlmPolicy implements Policy {
  readonly usage: UsageMeter;
  private readonly client: OpenAI;

  constructor(private readonly settings: LlmSettings) {
    this.usage = new UsageMeter(settings.model);
    this.client = new OpenAI({
      baseURL: settings.baseUrl,
      // Local OpenAI-compatible servers often need no key, but the client insists on one.
      apiKey: settings.apiKey ?? 'unused',
      maxRetries: 1,
      timeout: 60_000,
    });
  }

  private async complete(
    params: Omit<ChatCompletionCreateParamsNonStreaming, 'model'>,
    options?: { timeout: number; maxRetries: number },
  ): Promise<ChatCompletion> {
    let completion: ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({ ...params, model: this.settings.model }, options);
    } catch (error) {
      if (error instanceof OpenAI.APIError) {
        throw new LlmRequestError(`Language model request failed: ${error.message}`, { cause: error });
      }
      throw error;
    }
    const usage = completion.usage;
    if (usage) this.usage.add(usage.prompt_tokens, usage.completion_tokens, usage.total_tokens);
    return completion;
  }

  /** Spoken text and function calls of a turn or closing: streamed sentence by sentence on a live call. */
  private async speak(
    params: Omit<ChatCompletionCreateParamsNonStreaming, 'model'>,
    speech: SpeechSink,
  ): Promise<{ text: string; calls: FunctionCall[] }> {
    if (!speech.streaming && !speech.token) {
      const completion = await this.complete(params);
      const text = LlmPolicy.text(completion);
      if (text) speech.sentence(text);
      return { text, calls: LlmPolicy.calls(completion) };
    }
    // A live call speaks each sentence as soon as it is complete; a streamed text chat takes the
    // pieces as they come and the whole text once, as an unstreamed reply would hand it over.
    const splitter = speech.streaming ? new SentenceSplitter((sentence) => speech.sentence(sentence)) : undefined;
    const calls = new Map<number, FunctionCall>();
    let text = '';
    let waitingForFirstToken = true;
    try {
      speech.requestSent?.();
      const stream = await this.client.chat.completions.create({
        ...params,
        model: this.settings.model,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        if (chunk.usage)
          this.usage.add(chunk.usage.prompt_tokens, chunk.usage.completion_tokens, chunk.usage.total_tokens);
        const delta = chunk.choices[0]?.delta;
        if (!delta) continue;
        if (waitingForFirstToken && (delta.content || delta.tool_calls?.length)) {
          waitingForFirstToken = false;
          speech.firstToken?.();
        }
        if (delta.content) {
          text += delta.content;
          speech.token?.(delta.content);
          splitter?.push(delta.content);
        }
        for (const call of delta.tool_calls ?? []) {
          const entry = calls.get(call.index) ?? { id: '', name: '', arguments: '' };
          entry.id ||= call.id ?? '';
          entry.name += call.function?.name ?? '';
          entry.arguments += call.function?.arguments ?? '';
          calls.set(call.index, entry);
        }
      }
    } catch (error) {
      if (error instanceof OpenAI.APIError) {
        throw new LlmRequestError(`Language model request failed: ${error.message}`, { cause: error });
      }
      throw error;
    }
    const said = text.trim();
    if (splitter) splitter.flush();
    else if (said) speech.sentence(said);
    return { text: said, calls: [...calls.values()] };
  }

  /** The function calls of the first choice, with their names and raw arguments. */
  private static calls(completion: ChatCompletion): FunctionCall[] {
    return (completion.choices[0]?.message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    );
  }

  private static text(completion: ChatCompletion): string {
    return completion.choices[0]?.message.content?.trim() ?? '';
  }

  /**
   * One turn: the node's edges and tools offered as functions. Tool calls (several at once run side
   * by side) go back to the model as tool messages and it continues, for up to MAX_TOOL_ROUNDS
   * rounds; the last round offers the edges only. Text of every round is spoken.
   */
  async turn(request: TurnRequest, speech: SpeechSink, tools?: ToolSession): Promise<TurnDecision> {
    const edgeTools: ChatCompletionTool[] = request.edges.map((choice) => ({
      type: 'function',
      function: {
        name: choice.functionName,
        description: choice.condition || choice.edge.data.label,
        parameters: NO_PARAMETERS,
      },
    }));
    const functions = new Map((tools?.functions ?? []).map((fn) => [fn.name, fn]));
    const toolFunctions: ChatCompletionTool[] = [...functions.values()].map((fn) => ({
      type: 'function',
      function: { name: fn.name, description: fn.description, parameters: fn.parameters },
    }));
    const edges = new Map(request.edges.map((choice) => [choice.functionName, choice.edge]));
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: `${request.systemPrompt}\n\n${CALL_INSTRUCTIONS}` },
      ...toMessages(request.history),
      ...(request.notice ? [{ role: 'system' as const, content: request.notice }] : []),
    ];
    const said: string[] = [];
    for (let round = 0; ; round += 1) {
      const offered = round < MAX_TOOL_ROUNDS ? [...edgeTools, ...toolFunctions] : edgeTools;
      const { text, calls } = await this.speak(
        { messages, ...(offered.length > 0 ? { tools: offered, tool_choice: 'auto' as const } : {}) },
        speech,
      );
      if (text) said.push(text);
      const edge = calls.map((call) => edges.get(call.name)).find((found) => found !== undefined);
      const toolCalls = calls.filter((call) => functions.has(call.name));
      if (edge || toolCalls.length === 0 || !tools || round >= MAX_TOOL_ROUNDS) {
        const say = said.join(' ');
        return { ...(say ? { say } : {}), ...(edge ? { edge } : {}) };
      }
      const results = await Promise.all(
        toolCalls.map((call) => tools.call(functions.get(call.name) as ToolFunction, parseArguments(call))),
      );
      messages.push({
        role: 'assistant',
        content: text || null,
        tool_calls: toolCalls.map((call, index) => ({
          id: call.id || `call_${round}_${index}`,
          type: 'function',
          function: { name: call.name, arguments: call.arguments || '{}' },
        })),
      });
      toolCalls.forEach((call, index) =>
        messages.push({
          role: 'tool',
          tool_call_id: call.id || `call_${round}_${index}`,
          content: JSON.stringify(results[index]),
        }),
      );
      if (tools.endCall || tools.transfer) {
        const say = said.join(' ');
        return say ? { say } : {};
      }
    }
  }

  async closing(request: TurnRequest, speech: SpeechSink): Promise<string> {
    const { text } = await this.speak(
      {
        messages: [
          { role: 'system', content: `${request.systemPrompt}\n\n${CALL_INSTRUCTIONS}\nThis is your last turn.` },
          ...toMessages(request.history),
        ],
      },
      speech,
    );
    return text;
  }

  async extract(request: ExtractionRequest): Promise<Record<string, unknown>> {
    const properties = Object.fromEntries(
      request.variables.map((variable) => [
        variable.name,
        { type: [variable.type, 'null'], ...(variable.prompt ? { description: variable.prompt } : {}) },
      ]),
    );
    const completion = await this.complete({
      messages: [
        {
          role: 'system',
          content: `${request.instructions || 'Extract these variables from the phone call transcript.'}
Call extract_variables with every variable; use null for what the call did not reveal.`,
        },
        { role: 'user', content: formatTranscript(request.history) || '(no conversation)' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'extract_variables',
            description: 'Records the values found in the conversation.',
            parameters: { type: 'object', properties, required: Object.keys(properties) },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'extract_variables' } },
    });
    const args = parseArguments(LlmPolicy.calls(completion).find((call) => call.name === 'extract_variables'));
    return Object.fromEntries(
      request.variables.map((variable) => [variable.name, coerce(args[variable.name], variable.type)]),
    );
  }

  async transferSummary(history: TranscriptLine[], gathered: Record<string, unknown>): Promise<string> {
    const fallback = transferSummary(history, gathered);
    const facts = Object.keys(gathered).length > 0 ? `\n\nFacts gathered: ${JSON.stringify(gathered)}` : '';
    try {
      // The caller waits on hold meanwhile: one quick try, then the summary made without the model.
      const completion = await this.complete(
        {
          messages: [
            { role: 'system', content: SUMMARY_INSTRUCTIONS },
            { role: 'user', content: `${formatTranscript(history) || '(no conversation)'}${facts}` },
          ],
          max_tokens: SUMMARY_MAX_TOKENS,
        },
        { timeout: SUMMARY_TIMEOUT_MS, maxRetries: 0 },
      );
      const summary = LlmPolicy.text(completion);
      return summary ? clipSummary(summary) : fallback;
    } catch {
      return fallback;
    }
  }

  async dispose(codes: string[], history: TranscriptLine[], endedBy: ConversationResult['endedBy']): Promise<string> {
    const completion = await this.complete({
      messages: [
        {
          role: 'system',
          content: `The phone call below has ended (${endedBy}). Call set_disposition with the code that best describes its outcome.`,
        },
        { role: 'user', content: formatTranscript(history) || '(no conversation)' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'set_disposition',
            description: 'Records the outcome of the call.',
            parameters: {
              type: 'object',
              properties: { code: { type: 'string', enum: codes } },
              required: ['code'],
            },
          },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'set_disposition' } },
    });
    const code = parseArguments(LlmPolicy.calls(completion).find((call) => call.name === 'set_disposition')).code;
    return typeof code === 'string' && codes.includes(code) ? code : (codes[0] ?? '');
  }
}

function parseArguments(call: { arguments: string } | undefined): Record<string, unknown> {
  if (!call) return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
