import {
  analysisOfAnnotations,
  callAnalyzedData,
  callEventData,
  campaignEventData,
  type CallEventRun,
  type CampaignEventCampaign,
} from '../../domain/webhooks/event-data';
import { analysisEventId, callEventId } from '../../domain/webhooks/event-ids';

/** The `data` of each organization event, and the ids that make emitting an event again send nothing twice. */

const run: CallEventRun = {
  id: 41,
  agentId: 7,
  callType: 'outbound',
  provider: 'simulator',
  campaignId: 3,
  gatheredContext: { call_status: 'completed', name: 'Ada' },
  disposition: 'interested',
  callDurationSeconds: 95,
};

describe('call events', () => {
  it('call.started tells the run, its agent, direction, provider and campaign', () => {
    expect(callEventData(run, 'call.started')).toEqual({
      workflow_run_id: 41,
      agent_id: 7,
      direction: 'outbound',
      provider: 'simulator',
      campaign_id: 3,
    });
  });

  it("call.ended adds the call's status, disposition and duration", () => {
    expect(callEventData(run, 'call.ended')).toEqual({
      workflow_run_id: 41,
      agent_id: 7,
      direction: 'outbound',
      provider: 'simulator',
      campaign_id: 3,
      call_status: 'completed',
      disposition: 'interested',
      duration_seconds: 95,
    });
    expect(callEventData({ ...run, gatheredContext: {}, disposition: null }, 'call.ended')).toMatchObject({
      call_status: null,
      disposition: null,
    });
  });

  it('have one id per run and type, the same on every emission', () => {
    expect(callEventId(9, 'call.ended')).toBe('0ea0c391-5b64-562a-a385-b35f11744f63');
    expect(callEventId(9, 'call.started')).not.toBe(callEventId(9, 'call.ended'));
    expect(callEventId(10, 'call.ended')).not.toBe(callEventId(9, 'call.ended'));
  });
});

describe('campaign events', () => {
  const campaign: CampaignEventCampaign = {
    id: 3,
    name: 'Spring renewals',
    state: 'paused',
    processedRows: 12,
    totalRows: 40,
    failedRows: 5,
  };

  it("carry the transition's log entry and the campaign's counters", () => {
    const log = {
      level: 'warning' as const,
      event: 'circuit_breaker_tripped',
      message: 'Paused: failure rate 60.00% (6/10) exceeded threshold 50.00% in 300s window',
      details: { failure_rate: 0.6, failure_count: 6, call_count: 10 },
    };
    expect(campaignEventData(campaign, log)).toEqual({
      campaign_id: 3,
      name: 'Spring renewals',
      state: 'paused',
      reason: 'circuit_breaker_tripped',
      message: log.message,
      details: log.details,
      processed_rows: 12,
      total_rows: 40,
      failed_rows: 5,
    });
  });

  it('send empty details when the log entry has none', () => {
    const completed = { ...campaign, state: 'completed' as const };
    expect(
      campaignEventData(completed, { level: 'info', event: 'campaign_completed', message: 'Campaign completed' }),
    ).toMatchObject({ state: 'completed', reason: 'campaign_completed', details: {} });
  });
});

describe('call_analyzed', () => {
  it("sends the run's tags and what its analysis found", () => {
    expect(
      analysisOfAnnotations({
        tags: ['renewal'],
        analysis: { success: { successful: true }, sentiment: 'positive' },
        other: 'not sent',
      }),
    ).toEqual({ tags: ['renewal'], success: { successful: true }, sentiment: 'positive' });
    expect(callAnalyzedData(41, { tags: [] })).toEqual({ workflow_run_id: 41, analysis: { tags: [] } });
  });

  it('sends no tags as an empty list, and ignores an analysis that is not an object', () => {
    expect(analysisOfAnnotations({})).toEqual({ tags: [] });
    expect(analysisOfAnnotations(null)).toEqual({ tags: [] });
    expect(analysisOfAnnotations({ analysis: ['a'] })).toEqual({ tags: [] });
    expect(analysisOfAnnotations({ analysis: 'found' })).toEqual({ tags: [] });
  });

  it('has one id per analysis of the run', () => {
    expect(analysisEventId(9, 'call')).toBe('388fafe0-e7fb-5ac4-a11d-193ff794f35c');
    expect(analysisEventId(9, 'rerun-1')).not.toBe(analysisEventId(9, 'call'));
  });
});
