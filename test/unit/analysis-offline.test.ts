import type { TranscriptLine } from '../../agent-runtime/contract';
import { analyzeCall } from '../../domain/analysis/analyze-call';
import { lexiconSentiment, observedTags, silences } from '../../domain/analysis/call-signals';
import { analyzeOffline } from '../../domain/analysis/offline-analyzer';
import { DEFAULT_QA_PROMPT, fillPlaceholders, qaSystemPrompt } from '../../domain/analysis/prompt';
import { PRESET_FIELDS, qaSettingsOf } from '../../domain/analysis/qa-settings';
import { inSample, sampleBucket } from '../../domain/analysis/sampling';
import { skipReason } from '../../domain/analysis/skip-rules';
import type { CallForAnalysis, QaSettings } from '../../domain/analysis/types';

const START = Date.parse('2026-03-01T10:00:00.000Z');
/** A line `seconds` into the call; with `end`, a live call's timings too. */
const line = (seconds: number, role: TranscriptLine['role'], text: string, end?: number): TranscriptLine => ({
  at: new Date(START + seconds * 1000).toISOString(),
  role,
  text,
  ...(end === undefined ? {} : { start: seconds, end }),
});

const settings = (overrides: Partial<QaSettings> = {}): QaSettings => ({
  nodeId: 'qa1',
  name: 'QA',
  enabled: true,
  minCallDurationSeconds: 15,
  voicemailCalls: false,
  sampleRate: 100,
  useWorkflowLlm: true,
  fields: Object.values(PRESET_FIELDS),
  ...overrides,
});

const call = (transcript: TranscriptLine[], overrides: Partial<CallForAnalysis> = {}): CallForAnalysis => ({
  runId: 4242,
  callStatus: 'completed',
  disposition: 'completed',
  durationSeconds: 60,
  transcript,
  visited: [{ id: 'start', name: 'Greeting', prompt: 'Greet the caller and confirm the appointment.' }],
  gatheredContext: {},
  endedBy: 'end_node',
  voicemail: false,
  ...overrides,
});

/** A pleasant booking: no silences, no repeats, a glad caller. */
const HAPPY = [
  line(0, 'assistant', 'Hello, this is Dana from Bright Dental. Is this a good time to confirm your appointment?', 5),
  line(5.5, 'user', 'Yes, sure, thanks for calling.', 7),
  line(7.5, 'assistant', 'Great. Your cleaning is on Tuesday at 3 pm. Does that still work?', 11),
  line(11.6, 'user', 'Perfect, that works great. Thank you so much!', 14),
  line(14.4, 'assistant', 'Wonderful, see you Tuesday. Goodbye.', 16),
];

/** A caller kept waiting, an agent that says the same thing twice, and a request to stop. */
const ANGRY = [
  line(0, 'assistant', 'Hello, I am calling about your car warranty, which is about to expire.', 4),
  line(4.5, 'user', 'What? Who is this?', 5.5),
  line(13, 'assistant', 'Hello, I am calling about your car warranty, which is about to expire.', 17),
  line(17.5, 'user', 'This is ridiculous and annoying. Stop calling me, this is a waste of my time.', 21),
  line(21.5, 'assistant', 'Understood. We will not call you again. Goodbye.', 24),
];

describe('offline analyzer on hand-written calls', () => {
  it('a glad caller who confirms: positive, no tags, successful, top score', () => {
    const { result, fields, success } = analyzeOffline(
      call(HAPPY),
      settings({ successEvaluation: { rubric: 'pass_fail', criteria: 'The appointment is confirmed.' } }),
      new Date(START),
    );
    expect(result.overall_sentiment).toBe('positive');
    expect(result.tags).toEqual([]);
    expect(result.score).toBe(10);
    expect(result.model).toBe('offline');
    expect(result.summary).toContain('the agent spoke 3 times, the caller 2');
    expect(result.summary).toContain('The caller first said "Yes, sure, thanks for calling."');
    expect(result.summary).toContain('when the conversation reached its end');
    expect(fields).toEqual({ call_summary: result.summary, call_successful: true, user_sentiment: 'positive' });
    expect(success).toMatchObject({ rubric: 'pass_fail', value: true, successful: true });
  });

  it('dead air, a repeated line and a request to stop: each tagged, negative, unsuccessful', () => {
    const { result, fields, success } = analyzeOffline(
      call(ANGRY, { endedBy: 'end_node' }),
      settings({ successEvaluation: { rubric: 'scale', criteria: 'The caller agrees to a renewal.' } }),
    );
    expect(result.tags.map((tag) => tag.tag)).toEqual(['dead_air', 'asked_to_stop', 'agent_repeated']);
    expect(result.tags[0]?.reason).toContain('7.5 s, before turn 3');
    expect(result.tags[1]?.reason).toContain('Stop calling me');
    expect(result.overall_sentiment).toBe('negative');
    // 10 - 2 (dead air) - 3 (stop) - 2 (repeat) - 2 (negative) - 2 (goal not reached), at least 1.
    expect(result.score).toBe(1);
    expect(fields.call_successful).toBe(false);
    expect(fields.user_sentiment).toBe('negative');
    expect(success).toMatchObject({ rubric: 'scale', value: 1, successful: false });
  });

  it('reads silences from utterance times when a call has no audio timings', () => {
    const transcript = [
      line(0, 'assistant', 'Hi there.'),
      // "Hi there." takes about 0.8 s to say: 9.2 s of silence.
      line(10, 'user', 'Hello?'),
      line(11, 'assistant', 'Sorry about that, how can I help?'),
    ];
    expect(silences(transcript)).toEqual([9.2, 0.6]);
    expect(observedTags(transcript).map((tag) => tag.tag)).toEqual(['dead_air']);
  });

  it('the lexicon counts a negated word the other way, and a balance of words is neutral', () => {
    expect(lexiconSentiment([line(0, 'user', 'I am not happy with this, it was not helpful')]).sentiment).toBe(
      'negative',
    );
    expect(lexiconSentiment([line(0, 'user', 'Good, but there is a problem')]).sentiment).toBe('neutral');
    expect(lexiconSentiment([line(0, 'assistant', 'terrible awful worst')]).sentiment).toBe('neutral');
  });

  it('typed fields come from the extracted variables, or an enum choice the caller named', () => {
    const typed = settings({
      fields: [
        { name: 'budget', type: 'number', description: 'Monthly budget' },
        { name: 'callback', type: 'boolean', description: 'Wants a call back' },
        { name: 'plan', type: 'enum', description: 'Plan chosen', choices: ['basic', 'premium'] },
        { name: 'city', type: 'string', description: 'Where they live' },
        { name: 'colour', type: 'enum', description: 'Favourite colour', choices: ['red', 'blue'] },
      ],
    });
    const { fields } = analyzeOffline(
      call([line(0, 'assistant', 'Which plan would you like?'), line(2, 'user', 'The premium one, please.')], {
        gatheredContext: { budget: '120', callback: 'yes', colour: 'Blue' },
      }),
      typed,
    );
    expect(fields).toEqual({ budget: 120, callback: true, plan: 'premium', city: null, colour: 'blue' });
  });
});

describe('skip rules and sampling', () => {
  it('skips a machine, an empty call and a short one, in that order', () => {
    expect(skipReason(call(HAPPY, { voicemail: true }), settings())).toBe('voicemail_call');
    expect(skipReason(call(HAPPY, { voicemail: true }), settings({ voicemailCalls: true }))).toBeNull();
    expect(skipReason(call([], { voicemail: false }), settings())).toBe('no_conversation');
    expect(skipReason(call(HAPPY, { durationSeconds: 14 }), settings())).toBe('call_too_short');
    expect(skipReason(call(HAPPY, { durationSeconds: 15 }), settings())).toBeNull();
  });

  it('decides by the run id alone: the same every time, about the rate over many runs', () => {
    const runs = Array.from({ length: 20_000 }, (_, index) => index + 1);
    const first = runs.map((runId) => inSample(runId, 25));
    expect(runs.map((runId) => inSample(runId, 25))).toEqual(first);
    const share = first.filter(Boolean).length / runs.length;
    expect(share).toBeGreaterThan(0.23);
    expect(share).toBeLessThan(0.27);
    expect(runs.every((runId) => inSample(runId, 100))).toBe(true);
    expect(runs.some((runId) => inSample(runId, 0))).toBe(false);
    // A smaller sample is inside a larger one.
    expect(runs.filter((runId) => inSample(runId, 10)).every((runId) => inSample(runId, 25))).toBe(true);
    const out = runs.find((runId) => !inSample(runId, 25)) as number;
    expect(skipReason(call(HAPPY, { runId: out }), settings({ sampleRate: 25 }))).toBe('not_sampled');
    expect(sampleBucket(out)).toBeGreaterThanOrEqual(2500);
  });
});

describe('QA prompt', () => {
  const values = { transcript: 'T', node_summary: 'N', previous_conversation_summary: 'P', metrics: 'M' };

  it('fills each placeholder in either brace style and leaves other braces alone', () => {
    expect(
      fillPlaceholders(
        '{transcript}|{{transcript}}|{{ metrics }}|{node_summary}|{{previous_conversation_summary}}',
        values,
      ),
    ).toBe('T|T|M|N|P');
    expect(fillPlaceholders('Answer like {"score": 7} or {unknown} {{other}}', values)).toBe(
      'Answer like {"score": 7} or {unknown} {{other}}',
    );
  });

  it('the default prompt carries the transcript, the nodes and the metrics; a custom one gets the transcript appended', () => {
    const prompt = qaSystemPrompt(settings(), call(HAPPY));
    expect(DEFAULT_QA_PROMPT).toContain('{transcript}');
    expect(prompt).toContain('user: Perfect, that works great. Thank you so much!');
    expect(prompt).toContain('- Greeting: Greet the caller and confirm the appointment.');
    expect(prompt).toContain('"duration_seconds":60');
    expect(prompt).toContain('"user_sentiment" (one of "positive", "neutral", "negative"');
    const custom = qaSystemPrompt(settings({ systemPrompt: 'Judge the agent harshly.' }), call(HAPPY));
    expect(custom.startsWith("Judge the agent harshly.\n\nThe call's transcript:\n[")).toBe(true);
  });
});

describe('a call analysed with every QA node of its agent', () => {
  it('offline without a model: results per node, tags across nodes, typed fields with their types', async () => {
    const definition = {
      nodes: [
        { id: 'start', type: 'startCall', data: { name: 'Start', prompt: 'Hi' } },
        {
          id: 'qa1',
          type: 'qa',
          data: {
            name: 'Quality',
            qa_enabled: true,
            qa_min_call_duration: 15,
            qa_voicemail_calls: false,
            qa_sample_rate: 100,
            qa_use_workflow_llm: true,
            analysis_presets: ['call_summary', 'user_sentiment'],
            analysis_fields: [{ name: 'renewal', type: 'boolean', description: 'Agreed to renew' }],
            success_evaluation: { rubric: 'pass_fail', criteria: 'Renewal agreed' },
          },
        },
        {
          id: 'qa2',
          type: 'qa',
          data: {
            name: 'Long calls only',
            qa_enabled: true,
            qa_min_call_duration: 600,
            qa_voicemail_calls: false,
            qa_sample_rate: 100,
            qa_use_workflow_llm: true,
            analysis_presets: [],
            analysis_fields: [],
          },
        },
        {
          id: 'qa3',
          type: 'qa',
          data: {
            name: 'Off',
            qa_enabled: false,
            qa_min_call_duration: 0,
            qa_voicemail_calls: true,
            qa_sample_rate: 100,
            qa_use_workflow_llm: true,
          },
        },
      ],
    };
    const nodes = qaSettingsOf(definition);
    expect(nodes.map((node) => [node.nodeId, node.fields.map((field) => field.name)])).toEqual([
      ['qa1', ['call_summary', 'user_sentiment', 'renewal']],
      ['qa2', []],
      ['qa3', []],
    ]);
    const { annotations, usage } = await analyzeCall(call(ANGRY), nodes, { endpointFor: () => Promise.resolve(null) });
    expect(usage).toEqual([]);
    expect(annotations.qa_qa1).toMatchObject({ overall_sentiment: 'negative', model: 'offline' });
    expect(annotations.qa_qa2).toEqual({ skipped: true, reason: 'call_too_short' });
    expect(annotations).not.toHaveProperty('qa_qa3');
    expect(annotations.tags).toEqual(['dead_air', 'asked_to_stop', 'agent_repeated']);
    expect(annotations.analysis).toMatchObject({
      model: 'offline',
      fields: {
        call_summary: { type: 'string', value: expect.stringContaining('A 60 s call') as unknown },
        user_sentiment: { type: 'enum', value: 'negative' },
        renewal: { type: 'boolean', value: null },
      },
      success: { rubric: 'pass_fail', value: false, successful: false },
    });
  });
});
