import type { ConversationResult } from '../../agent-runtime/contract';
import { CallState } from '../../workflows/call/state';

const NOW = Date.UTC(2026, 0, 5, 12);

const conversation = (endedBy: ConversationResult['endedBy']): ConversationResult => ({
  transcript: [],
  gatheredContext: {},
  disposition: 'interested',
  endedBy,
  nodePath: ['start', 'end'],
  usage: { model: 'offline', promptTokens: 0, completionTokens: 0, totalTokens: 0 },
});

/** A call the dial placed as `P1` at NOW. */
function placed(): CallState {
  const call = new CallState();
  call.placed('P1', NOW);
  return call;
}

describe('CallState', () => {
  it('keeps the first terminal status: repeats and later ones change nothing', () => {
    const call = placed();
    call.statusReported({ status: 'busy', providerCallId: 'P1', durationSeconds: 0 }, NOW);
    call.statusReported({ status: 'completed', providerCallId: 'P1', durationSeconds: 9 }, NOW + 1);
    call.statusReported({ status: 'answered', providerCallId: 'P1' }, NOW + 2);
    expect(call.final).toEqual({ status: 'busy', durationSeconds: 0 });
    expect(call.answered).toBe(false);
  });

  it("ignores another call's events; an event without an id is the call's", () => {
    const call = placed();
    call.statusReported({ status: 'failed', providerCallId: 'P2' }, NOW);
    expect(call.ended).toBe(false);
    call.statusReported({ status: 'answered' }, NOW + 5);
    expect(call.answeredAt).toBe(NOW + 5);
  });

  it('keeps the events that come before the dial returns, and applies them once the call has its id', () => {
    const call = new CallState();
    call.statusReported({ status: 'answered', providerCallId: 'P1', answeredBy: 'machine' }, NOW);
    call.statusReported({ status: 'no-answer', providerCallId: 'P2' }, NOW);
    expect(call.answered).toBe(false);
    expect(() => call.callId).toThrow('before it was placed');
    call.placed('P1', NOW + 3);
    expect(call.callId).toBe('P1');
    expect(call.answeredAt).toBe(NOW + 3);
    expect(call.machine).toBe(true);
    expect(call.ended).toBe(false);
  });

  it('takes the first answer as the time it was answered', () => {
    const call = placed();
    call.statusReported({ status: 'answered', providerCallId: 'P1' }, NOW + 1);
    call.statusReported({ status: 'answered', providerCallId: 'P1' }, NOW + 2);
    expect(call.answeredAt).toBe(NOW + 1);
    expect(call.connected).toBe(true);
  });

  it('takes a call completed before its answer was heard of as connected', () => {
    const call = placed();
    call.statusReported({ status: 'completed', providerCallId: 'P1', durationSeconds: 4 }, NOW);
    expect(call.answered).toBe(false);
    expect(call.connected).toBe(true);
  });

  it('answers an inbound call at once', () => {
    const call = new CallState();
    call.statusReported({ status: 'answered', providerCallId: 'IN1' }, NOW - 1);
    call.answeredInbound('IN1', NOW);
    expect(call.answeredAt).toBe(NOW);
    expect(call.callId).toBe('IN1');
  });

  it('takes its own hang-up of a ringing call (canceled), or none, as no-answer; never an answered call', () => {
    const silent = placed();
    silent.rangOut();
    expect(silent.final).toEqual({ status: 'no-answer', durationSeconds: 0 });

    const canceled = placed();
    canceled.statusReported({ status: 'canceled', providerCallId: 'P1' }, NOW);
    canceled.rangOut();
    expect(canceled.final).toEqual({ status: 'no-answer', durationSeconds: 0 });

    const busy = placed();
    busy.statusReported({ status: 'busy', providerCallId: 'P1' }, NOW);
    busy.rangOut();
    expect(busy.final?.status).toBe('busy');

    const answered = placed();
    answered.statusReported({ status: 'answered', providerCallId: 'P1' }, NOW);
    answered.rangOut();
    expect(answered.ended).toBe(false);
  });

  it("follows a live call's conversation: the first report counts, and one that began is awaited", () => {
    const call = placed();
    expect(call.conversationUnderWay).toBe(false);
    call.conversationStarted();
    expect(call.conversationUnderWay).toBe(true);
    call.conversationEnded(conversation('end_node'));
    call.conversationEnded(conversation('callee_hangup'));
    expect(call.conversation?.endedBy).toBe('end_node');
    expect(call.conversationUnderWay).toBe(false);
  });

  it('counts a conversation reported without its start as begun and ended', () => {
    const call = placed();
    call.conversationEnded(conversation('voicemail'));
    expect(call.conversationUnderWay).toBe(false);
    expect(call.conversation?.endedBy).toBe('voicemail');
  });

  it("remembers its campaign's request for a report", () => {
    const call = placed();
    expect(call.campaignAskedForReport).toBe(false);
    call.reportRequested();
    expect(call.campaignAskedForReport).toBe(true);
  });
});
