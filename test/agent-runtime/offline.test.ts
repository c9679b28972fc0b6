import { converse, formatTranscript, MAX_TURNS, type ConversationInput } from '../../agent-runtime';

const START = new Date('2026-01-01T00:00:00.000Z');
const now = () => START;
const at = (seconds: number) => new Date(START.getTime() + seconds * 1000).toISOString();
/** The documented offline count: OpenAI's o200k_base tokenizer, straight from js-tiktoken. */
/* eslint-disable @typescript-eslint/no-require-imports -- js-tiktoken's CommonJS build */
const { Tiktoken } = require('js-tiktoken/lite') as {
  Tiktoken: new (ranks: unknown) => { encode(text: string): number[] };
};
const o200k = new Tiktoken(require('js-tiktoken/ranks/o200k_base'));
/* eslint-enable @typescript-eslint/no-require-imports */
const tokens = (text: string) => o200k.encode(text).length;

type Node = { id: string; type: string; data: Record<string, unknown> };
type Edge = { id: string; source: string; target: string; data: Record<string, unknown> };

const node = (id: string, type: string, prompt: string, data: Record<string, unknown> = {}): Node => ({
  id,
  type,
  data: { name: id, prompt, ...data },
});
const edge = (
  source: string,
  target: string,
  label: string,
  condition: string,
  data: Record<string, unknown> = {},
) => ({
  id: `${source}-${target}`,
  source,
  target,
  data: { label, condition, ...data },
});

/** start → talk → end, the edge into the end node with transition speech. */
function reminder(): { nodes: Node[]; edges: Edge[] } {
  return {
    nodes: [
      node('start', 'startCall', 'Hello {{first_name}}, this is a reminder call. Please confirm.'),
      node('talk', 'agentNode', 'Can you confirm {{day | Tuesday}} at 3pm? Be brief.'),
      node('end', 'endCall', 'Thank you, goodbye. Then hang up.'),
    ],
    edges: [
      edge('start', 'talk', 'Continue', 'The person answered'),
      edge('talk', 'end', 'Done', 'Confirmed', { transition_speech: 'Great, noting that.' }),
    ],
  };
}

function input(definition: object, overrides: Partial<ConversationInput> = {}): ConversationInput {
  return {
    runId: 1,
    definition: definition as Record<string, unknown>,
    workflowConfigurations: {},
    templateContextVariables: {},
    initialContext: { first_name: 'Alice' },
    dispositionCodes: [],
    maxDurationSeconds: 300,
    callee: { kind: 'simulated', talkSeconds: 120 },
    ...overrides,
  };
}

describe('converse offline', () => {
  it('walks start → agent → end: transcript, node path, disposition, duration and usage', async () => {
    const result = await converse(input(reminder()), { now });
    // Each line takes 1 s plus 2.5 words a second, rounded up.
    expect(result.transcript).toEqual([
      { at: at(0), role: 'assistant', text: 'Hello Alice, this is a reminder call.' },
      { at: at(4), role: 'user', text: 'Hi, this is Alice. Yes, that sounds good.' },
      { at: at(9), role: 'assistant', text: 'Can you confirm Tuesday at 3pm?' },
      { at: at(13), role: 'user', text: 'Yes, please go ahead.' },
      { at: at(16), role: 'assistant', text: 'Great, noting that.' },
      { at: at(19), role: 'assistant', text: 'Thank you, goodbye.' },
    ]);
    expect(result.nodePath).toEqual(['start', 'talk', 'end']);
    expect(result.endedBy).toBe('end_node');
    expect(result.disposition).toBe('completed');
    expect(result.durationSeconds).toBe(22);
    expect(result.gatheredContext).toEqual({});

    const lines = result.transcript.map((line) => `${line.role}: ${line.text}`);
    const startPrompt = 'Hello Alice, this is a reminder call. Please confirm.';
    const talkPrompt = 'Can you confirm Tuesday at 3pm? Be brief.';
    // Per turn: the prompt it stands for (system prompt + conversation so far, each message counted
    // on its own plus a token per line break between them) and what it produced.
    const turns: [string[], string][] = [
      [[startPrompt], 'Hello Alice, this is a reminder call.'],
      [[startPrompt, ...lines.slice(0, 2)], 'Continue'],
      [[talkPrompt, ...lines.slice(0, 2)], 'Can you confirm Tuesday at 3pm?'],
      [[talkPrompt, ...lines.slice(0, 4)], 'Done'],
      [['Thank you, goodbye. Then hang up.', ...lines.slice(0, 5)], 'Thank you, goodbye.'],
    ];
    const promptTokens = turns.reduce(
      (sum, [messages]) => sum + messages.reduce((total, message) => total + tokens(message), 0) + messages.length - 1,
      0,
    );
    const completionTokens = turns.reduce((sum, [, said]) => sum + tokens(said), 0);
    expect(result.usage).toEqual({
      model: 'offline',
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
    });
  });

  it('formats the transcript as [timestamp] role: text lines', async () => {
    const result = await converse(input(reminder()), { now });
    expect(formatTranscript(result.transcript).split('\n')[0]).toBe(
      '[2026-01-01T00:00:00.000Z] assistant: Hello Alice, this is a reminder call.',
    );
  });

  it('chooses the first disposition code, unless the conversation extracted a call_disposition', async () => {
    const coded = await converse(input(reminder(), { dispositionCodes: ['XFER', 'DNC'] }), { now });
    expect(coded.disposition).toBe('XFER');

    const definition = reminder();
    Object.assign(definition.nodes[1]!.data, {
      extraction_enabled: true,
      extraction_variables: [{ name: 'call_disposition', type: 'string' }],
    });
    const extracted = await converse(
      input(definition, { dispositionCodes: ['XFER'], initialContext: { call_disposition: 'DNC' } }),
      { now },
    );
    expect(extracted.disposition).toBe('DNC');
  });

  it('renders templates from initial_context over template_context_variables, with fallbacks', async () => {
    const definition = reminder();
    definition.nodes[0]!.data.prompt = 'Hi {{first_name}} from {{company}}, calling {{called_number | you}}.';
    definition.edges[1]!.data.transition_speech = 'Noted for {{initial_context.first_name}}.';
    const result = await converse(
      input(definition, {
        templateContextVariables: { first_name: 'Default', company: 'Acme', day: 'Friday' },
        initialContext: { first_name: 'Bob' },
      }),
      { now },
    );
    const said = result.transcript.filter((line) => line.role === 'assistant').map((line) => line.text);
    expect(said).toEqual([
      'Hi Bob from Acme, calling you.',
      'Can you confirm Friday at 3pm?',
      'Noted for Bob.',
      'Thank you, goodbye.',
    ]);
  });

  it('speaks a text greeting first, then the callee answers', async () => {
    const definition = reminder();
    definition.nodes[0]!.data.greeting = 'Good morning {{first_name}}!';
    const result = await converse(input(definition), { now });
    expect(result.transcript.slice(0, 3).map((line) => line.text)).toEqual([
      'Good morning Alice!',
      'Hi, this is Alice. Yes, that sounds good.',
      'Can you confirm Tuesday at 3pm?',
    ]);
  });

  it('prepends the global prompt to nodes that add it (counted in the prompt tokens)', async () => {
    const globalPrompt = 'You are Sam from Acme Dental, always polite and concise.';
    const plain = await converse(input(reminder()), { now });
    const withGlobal = reminder();
    withGlobal.nodes.push(node('global', 'globalNode', globalPrompt));
    const global = await converse(input(withGlobal), { now });
    // Five turns, each system prompt grows by the global prompt and a blank line.
    const extra = 5 * tokens(`${globalPrompt}\n\n`);
    expect(global.usage.promptTokens - plain.usage.promptTokens).toBeGreaterThanOrEqual(extra - 5);
    expect(global.usage.promptTokens - plain.usage.promptTokens).toBeLessThanOrEqual(extra + 5);
    expect(global.transcript).toEqual(plain.transcript);

    withGlobal.nodes.forEach((n) => (n.data.add_global_prompt = false));
    const optedOut = await converse(input(withGlobal), { now });
    expect(optedOut.usage).toEqual(plain.usage);
  });

  it('fills extraction variables from initial_context by name, coerced, else null', async () => {
    const definition = reminder();
    Object.assign(definition.nodes[1]!.data, {
      extraction_enabled: true,
      extraction_variables: [
        { name: 'first_name', type: 'string' },
        { name: 'age', type: 'number' },
        { name: 'vip', type: 'boolean' },
        { name: 'confirmed', type: 'boolean', prompt: 'Did they confirm?' },
      ],
    });
    // Variables of a node without extraction_enabled are not run.
    Object.assign(definition.nodes[0]!.data, { extraction_variables: [{ name: 'ignored', type: 'string' }] });
    const result = await converse(
      input(definition, { initialContext: { first_name: 'Alice', age: '42', vip: 'true' } }),
      {
        now,
      },
    );
    expect(result.gatheredContext).toEqual({ first_name: 'Alice', age: 42, vip: true, confirmed: null });
  });

  it('takes the edge whose condition mentions a word of the callee reply', async () => {
    const definition = {
      nodes: [
        node('start', 'startCall', 'Shall we book?'),
        node('busy', 'endCall', 'Call back later.'),
        node('yes', 'endCall', 'Booked.'),
      ],
      edges: [
        edge('start', 'busy', 'Busy', 'The callee is busy'),
        edge('start', 'yes', 'Agree', 'The callee says yes'),
      ],
    };
    const result = await converse(input(definition), { now });
    expect(result.nodePath).toEqual(['start', 'yes']);
  });

  const cycle = () => ({
    nodes: [
      node('start', 'startCall', 'Hello there.'),
      node('a', 'agentNode', 'Question A?'),
      node('b', 'agentNode', 'Question B?'),
      node('end', 'endCall', 'Bye.'),
    ],
    edges: [edge('start', 'a', 'Go', 'Always'), edge('a', 'b', 'Next', 'Always'), edge('b', 'a', 'Back', 'Always')],
  });

  it('stops a cyclic graph at maxDurationSeconds', async () => {
    const result = await converse(
      input(cycle(), { maxDurationSeconds: 30, callee: { kind: 'simulated', talkSeconds: 600 } }),
      {
        now,
      },
    );
    expect(result.endedBy).toBe('max_duration');
    expect(result.disposition).toBe('call_duration_exceeded');
    expect(result.durationSeconds).toBe(30);
    expect(result.transcript.at(-1)!.at <= at(30)).toBe(true);
    expect(result.nodePath.slice(0, 4)).toEqual(['start', 'a', 'b', 'a']);
  });

  it('stops when the callee hangs up after talkSeconds', async () => {
    const result = await converse(input(cycle(), { callee: { kind: 'simulated', talkSeconds: 10 } }), { now });
    expect(result.endedBy).toBe('callee_hangup');
    expect(result.disposition).toBe('user_hangup');
    expect(result.durationSeconds).toBe(10);
    expect(result.transcript.length).toBeGreaterThan(0);
  });

  it('stops a cyclic graph after MAX_TURNS agent turns', async () => {
    const result = await converse(
      input(cycle(), { maxDurationSeconds: 1_000_000, callee: { kind: 'simulated', talkSeconds: 1_000_000 } }),
      { now },
    );
    expect(result.endedBy).toBe('max_duration');
    // Two agent turns per visit (speak, then take an edge).
    expect(result.nodePath).toHaveLength(MAX_TURNS / 2 + 1);
    expect(result.durationSeconds).toBeLessThan(1_000_000);
  });

  it('rejects a definition without a start node', async () => {
    await expect(converse(input({ nodes: [node('end', 'endCall', 'Bye.')], edges: [] }), { now })).rejects.toThrow(
      'Invalid workflow definition: no startCall node',
    );
  });
});
