import { campaignReportOf } from '../../domain/calls/campaign-call-report';
import { callStatusUpdateOf } from '../../domain/calls/call-control';
import { callsPerSecondOf } from '../../domain/calls/place-call';
import { voicemailMessageOf } from '../../domain/calls/voicemail-message';

describe('voicemailMessageOf', () => {
  it("renders the agent's message with the contact's fields and times it at 2.5 words a second, rounded up", () => {
    expect(voicemailMessageOf('Hi {{first_name}}, please call us back today.', { first_name: 'Ada' })).toEqual({
      text: 'Hi Ada, please call us back today.',
      seconds: 3,
    });
    expect(voicemailMessageOf('  Bye.  ', {})).toEqual({ text: 'Bye.', seconds: 1 });
  });

  it('has no message without a template, or when it is blank or renders blank', () => {
    expect(voicemailMessageOf(undefined, {})).toBeNull();
    expect(voicemailMessageOf(42, {})).toBeNull();
    expect(voicemailMessageOf('   ', {})).toBeNull();
    expect(voicemailMessageOf('{{missing}}', {})).toBeNull();
  });
});

describe('campaignReportOf', () => {
  const link = { parentWorkflowId: 'campaign-7', campaignId: 7, contactId: 'c-1', attempt: 2 };
  const call = { runId: 42, callStatus: 'completed' as const };

  it("tells a campaign's call's campaign its outcome, and that its analysis follows when it reports one", () => {
    expect(campaignReportOf({ ...call, campaign: link }, false)).toEqual({ ...link, runId: 42, outcome: 'completed' });
    expect(campaignReportOf({ ...call, campaign: link, reportsAnalysis: true }, true)).toEqual({
      ...link,
      runId: 42,
      outcome: 'completed',
      analysisFollows: true,
    });
    expect(campaignReportOf({ ...call, campaign: link, reportsAnalysis: true }, false)).not.toHaveProperty(
      'analysisFollows',
    );
  });

  it('tells a call not yet reported only when it is analysed next; otherwise its completion does', () => {
    expect(campaignReportOf({ ...call, campaignIfAnalyzed: link }, true)).toEqual({
      ...link,
      runId: 42,
      outcome: 'completed',
    });
    expect(campaignReportOf({ ...call, campaignIfAnalyzed: link }, false)).toBeNull();
    expect(campaignReportOf({ ...call, campaignIfAnalyzed: link }, undefined)).toBeNull();
    expect(campaignReportOf(call, true)).toBeNull();
  });
});

describe('callsPerSecondOf', () => {
  const configuration = { id: 3, provider: 'twilio', credentials: {}, callsPerSecond: null };

  it("paces a configuration's dials at its own rate, else at its provider's default", () => {
    expect(callsPerSecondOf({ provider: 'twilio', configuration: { ...configuration, callsPerSecond: 5 } })).toBe(5);
    expect(callsPerSecondOf({ provider: 'twilio', configuration })).toBe(1);
    expect(callsPerSecondOf({ provider: 'telnyx', configuration: { ...configuration, provider: 'telnyx' } })).toBe(30);
  });

  it('does not pace a run without a configuration, nor a provider without a default', () => {
    expect(callsPerSecondOf({ provider: 'web', configuration: null })).toBeNull();
    expect(
      callsPerSecondOf({ provider: 'simulator', configuration: { ...configuration, provider: 'simulator' } }),
    ).toBeNull();
  });
});

describe('callStatusUpdateOf', () => {
  it("hands the workflow the provider's status, with who answered only when known and never the raw payload", () => {
    const raw = { CallStatus: 'completed', To: '+14155550123' };
    expect(callStatusUpdateOf({ status: 'completed', providerCallId: 'P1', durationSeconds: 9, raw })).toEqual({
      status: 'completed',
      providerCallId: 'P1',
      durationSeconds: 9,
    });
    expect(callStatusUpdateOf({ status: 'answered', providerCallId: 'P1', answeredBy: 'machine', raw })).toEqual({
      status: 'answered',
      providerCallId: 'P1',
      durationSeconds: undefined,
      answeredBy: 'machine',
    });
  });
});
