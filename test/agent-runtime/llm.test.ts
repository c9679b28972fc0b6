import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { converse, LlmRequestError, type ConversationInput } from '../../agent-runtime';
import type { ConversationTools, ToolFunction, ToolInvocation, ToolOutcome } from '../../agent-runtime/tools';
import { transferSummary } from '../../agent-runtime/transfer-summary';

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters: Record<string, unknown> } }[];
  tool_choice?: unknown;
}

interface Scripted {
  content?: string;
  call?: { name: string; arguments?: Record<string, unknown> };
  /** Several function calls in one answer (ids `call_1`, `call_2`, ...). */
  calls?: { name: string; arguments?: Record<string, unknown> }[];
  usage?: [number, number, number];
  status?: number;
}

/** A local OpenAI-compatible server answering each chat completion with the next scripted message. */
let llm: Server;
let baseUrl: string;
let script: Scripted[] = [];
let received: ChatRequest[] = [];

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  llm = createServer((req, res) => {
    void readBody(req).then((text) => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      received.push(JSON.parse(text) as ChatRequest);
      const next = script.shift();
      if (!next || next.status) {
        res
          .writeHead(next?.status ?? 500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: next ? 'model overloaded' : 'script exhausted' } }));
        return;
      }
      const [prompt, completion, total] = next.usage ?? [1, 1, 2];
      const calls = next.calls ?? (next.call ? [next.call] : []);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: 0,
          model: 'test-model',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: next.content ?? null,
                ...(calls.length > 0
                  ? {
                      tool_calls: calls.map((call, index) => ({
                        id: `call_${index + 1}`,
                        type: 'function',
                        function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
                      })),
                    }
                  : {}),
              },
              finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
            },
          ],
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total },
        }),
      );
    });
  });
  llm.listen(0, '127.0.0.1');
  await once(llm, 'listening');
  baseUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  llm.close();
  await once(llm, 'close');
});

beforeEach(() => {
  script = [];
  received = [];
});

const START = new Date('2026-01-01T00:00:00.000Z');
const deps = () => ({ llm: { baseUrl, model: 'test-model' }, now: () => START });

const definition = {
  nodes: [
    { id: 'global', type: 'globalNode', data: { name: 'Global', prompt: 'You are Sam from Acme Dental.' } },
    { id: 'start', type: 'startCall', data: { name: 'Start', prompt: 'Greet {{first_name}} and offer a cleaning.' } },
    {
      id: 'book',
      type: 'agentNode',
      data: {
        name: 'Book',
        prompt: 'Book the slot.',
        extraction_enabled: true,
        extraction_prompt: 'Find the details about {{first_name}}.',
        extraction_variables: [
          { name: 'age', type: 'number', prompt: 'Their age' },
          { name: 'slot', type: 'string' },
        ],
      },
    },
    { id: 'booked', type: 'endCall', data: { name: 'Booked', prompt: 'Thank them.' } },
    {
      id: 'bye',
      type: 'endCall',
      data: { name: 'Bye', prompt: 'Apologize and say goodbye.', add_global_prompt: false },
    },
  ],
  edges: [
    {
      id: 'e1',
      source: 'start',
      target: 'book',
      data: { label: 'Book Appointment', condition: 'They want a cleaning' },
    },
    {
      id: 'e2',
      source: 'start',
      target: 'bye',
      data: { label: 'Not interested!', condition: 'They decline', transition_speech: 'No problem, {{first_name}}.' },
    },
    { id: 'e3', source: 'book', target: 'booked', data: { label: 'Done', condition: 'A slot is agreed' } },
  ],
};

function input(overrides: Partial<ConversationInput> = {}): ConversationInput {
  return {
    runId: 7,
    definition,
    workflowConfigurations: {},
    templateContextVariables: {},
    initialContext: { first_name: 'Alice' },
    dispositionCodes: ['BOOKED', 'DNC'],
    maxDurationSeconds: 300,
    callee: { kind: 'simulated', talkSeconds: 120 },
    ...overrides,
  };
}

describe('converse with a language model', () => {
  it("follows the model's edge choice, speaks the transition, sums usage and sets the disposition", async () => {
    script = [
      { content: 'Hi Alice, would you like a cleaning?', usage: [10, 5, 15] },
      { call: { name: 'not_interested_' }, usage: [20, 1, 21] },
      { content: 'Sorry to bother you, goodbye.', usage: [30, 6, 36] },
      { call: { name: 'set_disposition', arguments: { code: 'DNC' } }, usage: [5, 2, 7] },
    ];
    const result = await converse(input(), deps());
    expect(result.nodePath).toEqual(['start', 'bye']);
    expect(result.endedBy).toBe('end_node');
    expect(result.transcript.map(({ role, text }) => `${role}: ${text}`)).toEqual([
      'assistant: Hi Alice, would you like a cleaning?',
      'user: Hi, this is Alice. Yes, that sounds good.',
      'assistant: No problem, Alice.',
      'assistant: Sorry to bother you, goodbye.',
    ]);
    expect(result.disposition).toBe('DNC');
    expect(result.usage).toEqual({ model: 'test-model', promptTokens: 65, completionTokens: 14, totalTokens: 79 });

    const [first, second, closing, disposition] = received;
    expect(first?.model).toBe('test-model');
    expect(first?.tools?.map((tool) => [tool.function.name, tool.function.description])).toEqual([
      ['book_appointment', 'They want a cleaning'],
      ['not_interested_', 'They decline'],
    ]);
    expect(first?.messages[0]).toMatchObject({ role: 'system' });
    expect(first?.messages[0]?.content).toMatch(
      /^You are Sam from Acme Dental\.\n\nGreet Alice and offer a cleaning\./,
    );
    expect(second?.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hi Alice, would you like a cleaning?' },
      { role: 'user', content: 'Hi, this is Alice. Yes, that sounds good.' },
    ]);
    // The end node opts out of the global prompt, and has no edges to offer.
    expect(closing?.messages[0]?.content).toMatch(/^Apologize and say goodbye\./);
    expect(closing?.tools).toBeUndefined();
    expect(disposition?.tool_choice).toEqual({ type: 'function', function: { name: 'set_disposition' } });
    expect(disposition?.tools?.[0]?.function.parameters).toMatchObject({
      properties: { code: { type: 'string', enum: ['BOOKED', 'DNC'] } },
    });
  });

  it('runs extraction through a forced function call when leaving a node, coercing the values', async () => {
    script = [
      { call: { name: 'book_appointment' } },
      { content: 'Does Tuesday at 3pm work?' },
      { content: 'Perfect.', call: { name: 'done' } },
      { call: { name: 'extract_variables', arguments: { age: '41', slot: 'Tuesday 3pm' } } },
      { content: 'Thanks, see you then.' },
      { call: { name: 'set_disposition', arguments: { code: 'not a code' } } },
    ];
    const result = await converse(input(), deps());
    expect(result.nodePath).toEqual(['start', 'book', 'booked']);
    expect(result.transcript.map((line) => line.text)).toEqual([
      'Does Tuesday at 3pm work?',
      'Hi, this is Alice. Yes, that sounds good.',
      'Perfect.',
      'Thanks, see you then.',
    ]);
    expect(result.gatheredContext).toEqual({ age: 41, slot: 'Tuesday 3pm' });
    // An answer outside the codes falls back to the first code.
    expect(result.disposition).toBe('BOOKED');
    const extraction = received[3];
    expect(extraction?.messages[0]?.content).toContain('Find the details about Alice.');
    expect(extraction?.messages[1]?.content).toContain('] assistant: Does Tuesday at 3pm work?');
    expect(extraction?.tool_choice).toEqual({ type: 'function', function: { name: 'extract_variables' } });
    expect(extraction?.tools?.[0]?.function.parameters).toMatchObject({
      properties: { age: { type: ['number', 'null'], description: 'Their age' }, slot: { type: ['string', 'null'] } },
    });
    expect(result.usage).toEqual({ model: 'test-model', promptTokens: 6, completionTokens: 6, totalTokens: 12 });
  });

  it('surfaces an API error as an LlmRequestError with a clear message', async () => {
    script = [{ status: 400 }];
    const failure = converse(input(), deps());
    await expect(failure).rejects.toBeInstanceOf(LlmRequestError);
    await expect(failure).rejects.toThrow(/^Language model request failed: 400 model overloaded$/);
  });

  it('surfaces an unreachable model as an LlmRequestError', async () => {
    await expect(
      converse(input(), { llm: { baseUrl: 'http://127.0.0.1:1/v1', model: 'test-model' }, now: () => START }),
    ).rejects.toThrow(/^Language model request failed: /);
  });
});

describe('tools during a turn', () => {
  const ORDER_TOOL = '0f8e6a52-3c1d-4d2b-8d53-8a1f4c2e9b10';
  const toolDefinition = {
    nodes: [
      {
        id: 'start',
        type: 'startCall',
        data: { name: 'Start', prompt: 'Help with the order.', tool_uuids: [ORDER_TOOL] },
      },
      { id: 'end', type: 'endCall', data: { name: 'End', prompt: 'Say goodbye.' } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'The caller is helped' } }],
  };
  const orderStatus: ToolFunction = {
    toolUuid: ORDER_TOOL,
    name: 'order_status',
    description: 'Looks up an order',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    definition: {
      schema_version: 1,
      type: 'http_api',
      config: {
        method: 'GET',
        url: 'https://shop.example.com/orders/{{order_id}}',
        headers: {},
        parameters: [],
        preset_parameters: [],
        timeout_ms: 5000,
      },
    },
  };
  const invocations: ToolInvocation[] = [];
  const tools: ConversationTools = {
    forNode: (node) => (node.tool_uuids.includes(ORDER_TOOL) ? [orderStatus] : []),
    invoke: (invocation) => {
      invocations.push(invocation);
      return Promise.resolve({ result: { ok: true, status_code: 200, data: { status: 'shipped' } } });
    },
  };

  it('offers the node tools beside its edges, returns the result as a tool message, and logs the call', async () => {
    script = [
      { call: { name: 'order_status', arguments: { order_id: 'A-42' } } },
      { content: 'Your order has shipped.' },
      { call: { name: 'done' } },
      { content: 'Goodbye.' },
    ];
    const result = await converse(input({ definition: toolDefinition, dispositionCodes: [] }), { ...deps(), tools });
    expect(received[0]?.tools?.map((tool) => tool.function.name)).toEqual(['done', 'order_status']);
    expect(invocations).toEqual([expect.objectContaining({ args: { order_id: 'A-42' }, sequence: 1 })]);
    const followUp = received[1]?.messages as { role: string; content: string | null; tool_call_id?: string }[];
    expect(followUp.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: JSON.stringify({ ok: true, status_code: 200, data: { status: 'shipped' } }),
    });
    expect(result.transcript[0]).toMatchObject({ role: 'assistant', text: 'Your order has shipped.' });
    expect(result.toolCalls).toEqual([
      expect.objectContaining({
        sequence: 1,
        tool_uuid: ORDER_TOOL,
        function: 'order_status',
        status: 'ok',
        status_code: 200,
      }),
    ]);
    expect(result.nodePath).toEqual(['start', 'end']);
  });

  it('runs several tool calls of one answer side by side and gives the model each result under its own id', async () => {
    const started: string[] = [];
    let bothStarted: () => void = () => undefined;
    const bothRunning = new Promise<void>((resolve) => (bothStarted = resolve));
    const parallel: ConversationTools = {
      forNode: (node) => tools.forNode(node),
      invoke: async (invocation) => {
        const order = String(invocation.args.order_id);
        started.push(order);
        if (started.length === 2) bothStarted();
        // Each call answers only once both are running: calls made one after the other would stop here.
        await Promise.race([bothRunning, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        return { result: { ok: true, status_code: 200, data: { order, running: started.length } } };
      },
    };
    script = [
      {
        calls: [
          { name: 'order_status', arguments: { order_id: 'A-1' } },
          { name: 'order_status', arguments: { order_id: 'B-2' } },
        ],
      },
      { content: 'Both orders have shipped.' },
      { call: { name: 'done' } },
      { content: 'Goodbye.' },
    ];
    const result = await converse(input({ definition: toolDefinition, dispositionCodes: [] }), {
      ...deps(),
      tools: parallel,
    });
    expect(started).toEqual(['A-1', 'B-2']);
    const followUp = received[1]?.messages as { role: string; content: string | null; tool_call_id?: string }[];
    expect(followUp.slice(-2)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: JSON.stringify({ ok: true, status_code: 200, data: { order: 'A-1', running: 2 } }),
      },
      {
        role: 'tool',
        tool_call_id: 'call_2',
        content: JSON.stringify({ ok: true, status_code: 200, data: { order: 'B-2', running: 2 } }),
      },
    ]);
    expect(result.toolCalls?.map((call) => [call.sequence, call.arguments])).toEqual([
      [1, { order_id: 'A-1' }],
      [2, { order_id: 'B-2' }],
    ]);
    expect(result.transcript.find((line) => line.role === 'assistant')).toMatchObject({
      text: 'Both orders have shipped.',
    });
  });

  it('stops offering tools after the round limit, so a model that keeps calling them still answers', async () => {
    invocations.length = 0;
    script = [
      ...Array.from({ length: 5 }, () => ({ call: { name: 'order_status', arguments: { order_id: '1' } } })),
      { content: 'Let me check that later.' },
      { call: { name: 'done' } },
      { content: 'Goodbye.' },
    ];
    await converse(input({ definition: toolDefinition, dispositionCodes: [] }), { ...deps(), tools });
    expect(invocations).toHaveLength(5);
    expect(received[5]?.tools?.map((tool) => tool.function.name)).toEqual(['done']);
  });
});

describe('the summary a warm transfer speaks to the person', () => {
  const TRANSFER_TOOL = '6c1f9a2e-7b3d-4e8a-9f10-2d4c6e8a0b12';
  const transferDefinition = {
    nodes: [
      {
        id: 'start',
        type: 'startCall',
        data: { name: 'Start', prompt: 'Help {{first_name}}.', tool_uuids: [TRANSFER_TOOL] },
      },
      { id: 'end', type: 'endCall', data: { name: 'End', prompt: 'Say goodbye.' } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'The caller is helped' } }],
  };
  const transferToSales: ToolFunction = {
    toolUuid: TRANSFER_TOOL,
    name: 'transfer_to_sales',
    description: 'Puts the caller through to sales',
    parameters: { type: 'object', properties: {} },
    definition: {
      schema_version: 1,
      type: 'transfer_call',
      config: { destination_source: 'static', destination: '+14155550999', ring_timeout_seconds: 30, mode: 'warm' },
    },
  };
  const toolsAnswering = (outcome: ToolOutcome): ConversationTools => ({
    forNode: (node) => (node.tool_uuids.includes(TRANSFER_TOOL) ? [transferToSales] : []),
    invoke: () => Promise.resolve(outcome),
  });
  const warmTransfer = (announcement?: string): ToolOutcome => ({
    result: { ok: true, data: { transferring: true } },
    transfer: {
      request: {
        destination: '+14155550999',
        mode: 'warm',
        ringTimeoutSeconds: 30,
        ...(announcement ? { announcement } : {}),
      },
      message: 'Putting you through.',
    },
  });

  it('asks the model for a sentence or two from the transcript, and counts its tokens', async () => {
    script = [
      { call: { name: 'transfer_to_sales' }, usage: [10, 2, 12] },
      { content: 'Alice would like to book a cleaning next week.', usage: [30, 9, 39] },
    ];
    const result = await converse(input({ definition: transferDefinition, dispositionCodes: [] }), {
      ...deps(),
      tools: toolsAnswering(warmTransfer()),
    });

    expect(result.endedBy).toBe('transfer');
    expect(result.transfer).toMatchObject({
      mode: 'warm',
      announcement: 'Alice would like to book a cleaning next week.',
    });
    expect(received).toHaveLength(2);
    const [system, user] = received[1]!.messages;
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('handing a phone caller over to a colleague');
    expect(user?.role).toBe('user');
    expect(received[1]!.tools).toBeUndefined();
    expect(result.usage).toMatchObject({ promptTokens: 40, completionTokens: 11, totalTokens: 51 });
  });

  it('falls back to the summary made from the conversation when the model fails', async () => {
    script = [{ call: { name: 'transfer_to_sales' } }, { status: 503 }];
    const result = await converse(input({ definition: transferDefinition, dispositionCodes: [] }), {
      ...deps(),
      tools: toolsAnswering(warmTransfer()),
    });

    expect(received).toHaveLength(2);
    expect(result.transfer?.announcement).toBe(
      transferSummary(
        result.transcript.flatMap((line) => (line.role === 'tool' ? [] : [{ ...line, role: line.role }])),
        result.gatheredContext,
      ),
    );
  });

  it("speaks the tool's own warm message without asking the model", async () => {
    script = [{ call: { name: 'transfer_to_sales' } }];
    const result = await converse(input({ definition: transferDefinition, dispositionCodes: [] }), {
      ...deps(),
      tools: toolsAnswering(warmTransfer('A caller about a cleaning.')),
    });

    expect(received).toHaveLength(1);
    expect(result.transfer?.announcement).toBe('A caller about a cleaning.');
  });
});
