import type { TranscriptLine } from '../agent-runtime/contract';
import { analyzeCall } from '../domain/analysis/analyze-call';
import { PRESET_FIELDS } from '../domain/analysis/qa-settings';
import type { CallForAnalysis, QaSettings } from '../domain/analysis/types';

/**
 * The offline analyzer's CPU cost per call: `analyzeCall` (skip rules, the offline analysis, the
 * annotations) on a call of `turns` exchanges, for a QA node with the three presets, a custom enum
 * field and a pass/fail success evaluation. Measured with `process.cpuUsage`, after a warm-up.
 */
export async function offlineAnalysisCpuMs(calls: number, turns: number): Promise<number> {
  const call = benchCall(turns);
  const nodes = [qaNode()];
  const deps = { endpointFor: () => Promise.resolve(null) };
  for (let i = 0; i < Math.min(200, calls); i += 1) await analyzeCall(call, nodes, deps);
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await analyzeCall({ ...call, runId: i + 1 }, nodes, deps);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / calls;
}

function qaNode(): QaSettings {
  return {
    nodeId: 'qa',
    name: 'QA',
    enabled: true,
    minCallDurationSeconds: 0,
    voicemailCalls: false,
    sampleRate: 100,
    useWorkflowLlm: true,
    fields: [
      PRESET_FIELDS.call_summary,
      PRESET_FIELDS.call_successful,
      PRESET_FIELDS.user_sentiment,
      {
        name: 'preferred_day',
        type: 'enum',
        description: 'The day the caller chose.',
        choices: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
      },
    ],
    successEvaluation: { rubric: 'pass_fail', criteria: 'The caller confirmed the appointment.' },
  };
}

const AGENT_LINES = [
  'Hello, this is Ada from the clinic, calling about your appointment next week.',
  'Would Tuesday at ten in the morning still work for you?',
  'I can move it to another day if that is easier, just tell me which one.',
  'Great, I have noted that. Is there anything else I can help you with today?',
];
const CALLER_LINES = [
  'Oh hi, yes, thanks for calling.',
  'Hmm, Tuesday is difficult, I work until noon.',
  'Thursday would be much better for me, thank you.',
  'No, that is all, thanks a lot, goodbye.',
];

function benchCall(turns: number): CallForAnalysis {
  const start = Date.parse('2026-11-20T10:00:00.000Z');
  const transcript: TranscriptLine[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const at = (offset: number) => new Date(start + (turn * 12 + offset) * 1000).toISOString();
    transcript.push({ at: at(0), role: 'assistant', text: AGENT_LINES[turn % AGENT_LINES.length] as string });
    transcript.push({ at: at(6), role: 'user', text: CALLER_LINES[turn % CALLER_LINES.length] as string });
  }
  return {
    runId: 1,
    callStatus: 'completed',
    disposition: 'completed',
    durationSeconds: turns * 12,
    transcript,
    visited: [{ id: 'start', name: 'Greeting', prompt: 'Confirm the appointment.' }],
    gatheredContext: { call_status: 'completed', first_name: 'Grace' },
    voicemail: false,
  };
}
