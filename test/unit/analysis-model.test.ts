import type { TranscriptLine } from '../../agent-runtime/contract';
import { analyzeCall } from '../../domain/analysis/analyze-call';
import { analyzeWithModel, type ModelEndpoint } from '../../domain/analysis/model-analyzer';
import { PRESET_FIELDS } from '../../domain/analysis/qa-settings';
import type { CallForAnalysis, QaSettings } from '../../domain/analysis/types';
import { FakeLanguageModel } from '../helpers/llm-fake';

const transcript: TranscriptLine[] = [
  { at: '2026-03-01T10:00:00.000Z', role: 'assistant', text: 'Hello, calling about your order.' },
  { at: '2026-03-01T10:00:03.000Z', role: 'user', text: 'Great, I wanted the blue one.' },
];

const call: CallForAnalysis = {
  runId: 77,
  callStatus: 'completed',
  disposition: 'completed',
  durationSeconds: 42,
  transcript,
  visited: [{ id: 'start', name: 'Order check', prompt: 'Confirm the order colour.' }],
  gatheredContext: {},
  endedBy: 'end_node',
  voicemail: false,
};

const settings: QaSettings = {
  nodeId: 'qa1',
  name: 'QA',
  enabled: true,
  systemPrompt:
    'Nodes: {{node_summary}}\nBefore: {previous_conversation_summary}\nMetrics: {{ metrics }}\nCall:\n{transcript}\nShape like {"x": 1}.',
  minCallDurationSeconds: 0,
  voicemailCalls: false,
  sampleRate: 100,
  useWorkflowLlm: false,
  fields: [
    PRESET_FIELDS.call_successful,
    { name: 'colour', type: 'enum', description: 'Colour ordered', choices: ['red', 'blue'] },
    { name: 'quantity', type: 'number', description: 'Items ordered' },
  ],
  successEvaluation: { rubric: 'scale', criteria: 'The order is confirmed.', threshold: 7 },
};

const ANSWER = {
  summary: 'The caller confirmed a blue order.',
  tags: [{ tag: 'order_confirmed', reason: 'said the blue one' }, 'upsell_missed'],
  score: 8,
  overall_sentiment: 'Positive',
  fields: { call_successful: 'true', colour: 'BLUE', quantity: '2', unasked: 1 },
  success: { value: 8, reason: 'Confirmed' },
};

let llm: FakeLanguageModel;
let endpoint: ModelEndpoint;

beforeAll(async () => {
  llm = await new FakeLanguageModel().start();
  endpoint = { baseUrl: llm.baseUrl, model: 'qa-model', headers: { authorization: 'Bearer sk-qa' }, timeoutMs: 2_000 };
});
afterAll(() => llm.stop());
beforeEach(() => llm.reset());

describe('analysis by a language model (scripted OpenAI-compatible fake)', () => {
  it('fills the placeholders, asks for JSON and reads the answer into typed results; tokens counted', async () => {
    llm.answer({ content: JSON.stringify(ANSWER), usage: [300, 60, 360] });
    const outcome = await analyzeWithModel(call, settings, endpoint, new Date('2026-03-01T10:05:00.000Z'));
    const [request] = llm.received;
    expect(request?.body.model).toBe('qa-model');
    expect(request?.body.response_format).toEqual({ type: 'json_object' });
    expect(request?.headers.authorization).toBe('Bearer sk-qa');
    const system = request?.body.messages[0]?.content ?? '';
    expect(system).toContain('Nodes: - Order check: Confirm the order colour.');
    expect(system).toContain('Before: (none)');
    expect(system).toContain('Metrics: {"call_status":"completed","duration_seconds":42,"turns":2');
    expect(system).toContain('Call:\n[2026-03-01T10:00:00.000Z] assistant: Hello, calling about your order.\n[');
    expect(system).toContain('Shape like {"x": 1}.');
    expect(system).not.toMatch(/\{\{?\s*(transcript|metrics|node_summary|previous_conversation_summary)/);
    // The transcript is where the prompt asked for it, not a second time.
    expect(system.split('Great, I wanted the blue one.').length).toBe(2);
    expect(outcome).toEqual({
      analysis: {
        result: {
          summary: 'The caller confirmed a blue order.',
          tags: [
            { tag: 'order_confirmed', reason: 'said the blue one' },
            { tag: 'upsell_missed', reason: '' },
          ],
          score: 8,
          overall_sentiment: 'positive',
          model: 'qa-model',
          analyzed_at: '2026-03-01T10:05:00.000Z',
        },
        fields: { call_successful: true, colour: 'blue', quantity: 2 },
        success: { rubric: 'scale', value: 8, successful: true, reason: 'Confirmed' },
      },
      usage: { model: 'qa-model', promptTokens: 300, completionTokens: 60, totalTokens: 360 },
    });
  });

  it('an answer that is not JSON is the node error; its tokens still count', async () => {
    llm.answer({ content: 'Sure! The call went well.', usage: [200, 7, 207] });
    const outcome = await analyzeWithModel(call, settings, endpoint);
    expect(outcome.analysis).toEqual({ error: "The model's answer is not JSON: Sure! The call went well." });
    expect(outcome.usage.totalTokens).toBe(207);
  });

  it('a request that times out or fails is the node error', async () => {
    llm.answer({ content: JSON.stringify(ANSWER), delayMs: 5_000 });
    const slow = await analyzeWithModel(call, settings, { ...endpoint, timeoutMs: 300 });
    expect(slow.analysis).toEqual({ error: 'Language model request failed: timed out after 0.3 s' });
    expect(slow.usage.totalTokens).toBe(0);
    llm.answer({ status: 503 });
    const failed = await analyzeWithModel(call, settings, endpoint);
    expect(failed.analysis).toMatchObject({ error: expect.stringContaining('Language model request failed: 503') });
  });

  it('across nodes: errors recorded per node, usage summed by model, JSON in a code fence read', async () => {
    llm.answer(
      { content: '```json\n' + JSON.stringify(ANSWER) + '\n```', usage: [100, 20, 120] },
      { content: '{"summary": ', usage: [90, 3, 93] },
    );
    const second: QaSettings = { ...settings, nodeId: 'qa2', fields: [], successEvaluation: undefined };
    const { annotations, usage } = await analyzeCall(call, [settings, second], {
      endpointFor: () => Promise.resolve(endpoint),
    });
    expect(annotations.qa_qa1).toMatchObject({ score: 8, model: 'qa-model' });
    expect(annotations.qa_qa2).toEqual({
      error: expect.stringContaining("The model's answer is not JSON") as unknown,
      model: 'qa-model',
    });
    expect(annotations.tags).toEqual(['order_confirmed', 'upsell_missed']);
    expect(annotations.analysis).toEqual({
      fields: {
        call_successful: { type: 'boolean', value: true },
        colour: { type: 'enum', value: 'blue' },
        quantity: { type: 'number', value: 2 },
      },
      success: { rubric: 'scale', value: 8, successful: true, reason: 'Confirmed' },
      score: 8,
      sentiment: 'positive',
      model: 'qa-model',
    });
    expect(usage).toEqual([{ model: 'qa-model', promptTokens: 190, completionTokens: 23, totalTokens: 213 }]);
  });
});
