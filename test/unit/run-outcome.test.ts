import type { ConversationResult } from '../../agent-runtime/contract';
import { runOutcomeOf } from '../../domain/calls/run-outcome';

const AT = new Date('2026-03-02T10:00:00.000Z');
const prices = { perMinuteUsd: 0.06, per1kTokensUsd: 0.5 };

const conversation: ConversationResult = {
  transcript: [
    { at: '2026-03-02T09:59:00.000Z', role: 'assistant', text: 'Hello.' },
    { at: '2026-03-02T09:59:02.000Z', role: 'user', text: 'Hi.' },
  ],
  gatheredContext: { name: 'Ada', call_status: 'overwritten' },
  disposition: 'interested',
  endedBy: 'end_node',
  nodePath: ['start', 'qualify', 'end'],
  usage: { model: 'gpt-test', promptTokens: 1500, completionTokens: 500, totalTokens: 2000 },
};

describe('runOutcomeOf', () => {
  it('writes a completed conversation: its disposition, context, logs, usage and the charge for minutes and tokens', () => {
    const outcome = runOutcomeOf({ callStatus: 'completed', durationSeconds: 90, conversation }, prices, AT);
    // 1.5 minutes × 0.06 + 2 × 0.5
    expect(outcome).toEqual({
      callDurationSeconds: 90,
      platformTokenUsage: 2000,
      chargeUsd: 1.09,
      disposition: 'interested',
      gatheredContext: { name: 'Ada', call_status: 'completed', mapped_call_disposition: 'interested' },
      logs: { transcript: conversation.transcript, node_path: ['start', 'qualify', 'end'], ended_by: 'end_node' },
      hasTranscript: true,
      usageInfo: {
        call_duration_seconds: 90,
        llm: { model: 'gpt-test', prompt_tokens: 1500, completion_tokens: 500, total_tokens: 2000 },
        tool_calls: { total: 0, failed: 0 },
      },
      costInfo: {
        call_duration_seconds: 90,
        platform_token_usage: 2000,
        charge_usd: 1.09,
        price_per_minute_usd: 0.06,
        price_per_1k_tokens_usd: 0.5,
      },
    });
  });

  it('logs an opt-out, turn latencies and tool calls, and counts the failed tool calls', () => {
    const toolCall = {
      sequence: 1,
      tool_uuid: 'tool-1',
      function: 'lookup',
      arguments: {},
      status: 'ok' as const,
      duration_ms: 12,
      result_excerpt: '{}',
      at: '2026-03-02T09:59:01.000Z',
      node_id: 'qualify',
    };
    const turnLatency = [{ turn: 1, endpointing: 200, stt: 150, llm: 400, tts: 120, overhead: 30, total: 900 }];
    const outcome = runOutcomeOf(
      {
        callStatus: 'completed',
        durationSeconds: 30,
        conversation: {
          ...conversation,
          optOut: 'phrase',
          turnLatency,
          toolCalls: [toolCall, { ...toolCall, sequence: 2, status: 'failed' }],
        },
      },
      prices,
      AT,
    );
    expect(outcome.logs).toMatchObject({
      opt_out: 'phrase',
      turn_latency: turnLatency,
      tool_calls: [{ sequence: 1 }, { sequence: 2, status: 'failed' }],
    });
    expect(outcome.usageInfo.tool_calls).toEqual({ total: 2, failed: 1 });
  });

  it('writes a voicemail message left without a conversation as the transcript, said at the given time', () => {
    const outcome = runOutcomeOf(
      {
        callStatus: 'voicemail',
        durationSeconds: 12,
        conversation: null,
        voicemail: { text: 'Call us back.', seconds: 2 },
      },
      prices,
      AT,
    );
    expect(outcome.disposition).toBe('voicemail_left');
    expect(outcome.gatheredContext).toEqual({
      call_status: 'voicemail',
      mapped_call_disposition: 'voicemail_left',
      voicemail_message: 'Call us back.',
    });
    expect(outcome.logs).toEqual({
      transcript: [{ at: '2026-03-02T10:00:00.000Z', role: 'assistant', text: 'Call us back.' }],
    });
    expect(outcome.hasTranscript).toBe(true);
    expect(outcome.platformTokenUsage).toBe(0);
    expect(outcome.chargeUsd).toBe(0.012);
    expect(outcome.usageInfo).toEqual({ call_duration_seconds: 12 });
  });

  it('writes a call that never connected: its status as disposition, no transcript, no language model', () => {
    const outcome = runOutcomeOf({ callStatus: 'busy', durationSeconds: 0, conversation: null }, prices, AT);
    expect(outcome).toMatchObject({
      disposition: 'busy',
      chargeUsd: 0,
      gatheredContext: { call_status: 'busy', mapped_call_disposition: 'busy' },
      logs: { transcript: [] },
      hasTranscript: false,
      usageInfo: { call_duration_seconds: 0 },
    });
    expect(outcome.logs).not.toHaveProperty('node_path');
  });

  it("keeps a conversation's disposition only for a completed call", () => {
    const outcome = runOutcomeOf({ callStatus: 'error', durationSeconds: 5, conversation }, prices, AT);
    expect(outcome.disposition).toBe('error');
    expect(outcome.gatheredContext.mapped_call_disposition).toBe('error');
    expect(outcome.logs).toMatchObject({ transcript: conversation.transcript, ended_by: 'end_node' });
  });

  it('logs the transfer attempts with their destinations masked, and none when there were none', () => {
    const transfer = {
      destination: '+14155550123',
      mode: 'warm' as const,
      outcome: 'no-answer' as const,
      ring_seconds: 20,
      started_at: '2026-03-02T09:59:30.000Z',
      reason: 'nobody answered',
    };
    const ending = { callStatus: 'completed' as const, durationSeconds: 60, conversation };
    expect(runOutcomeOf({ ...ending, transfers: [transfer] }, prices, AT).logs.transfers).toEqual([
      { ...transfer, destination: '+14*******23' },
    ]);
    expect(runOutcomeOf({ ...ending, transfers: [] }, prices, AT).logs).not.toHaveProperty('transfers');
  });
});
