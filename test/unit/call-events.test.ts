import { withAnalysisEvent, withCallEvents, withInboundCallStarted } from '../../activities/call-events';
import { analysisEventId, callEventId } from '../../domain/webhooks/event-ids';

describe('the steps that mark call events', () => {
  it('emits call.started only for a placed call, and call.ended once the outcome is written', async () => {
    const emitted: string[] = [];
    let placed: { providerCallId: string } | { waitMs: number; throttled: boolean } = { waitMs: 500, throttled: false };
    const steps = withCallEvents(
      { placeCall: () => Promise.resolve(placed) },
      { concludeCall: () => Promise.resolve({} as never) },
      (runId, type) => {
        emitted.push(`${type}/${runId}`);
        return Promise.resolve();
      },
    );
    await steps.placeCall({ runId: 7, workflowId: 'call-7', attempt: 1 });
    placed = { providerCallId: 'sim-1' };
    await steps.placeCall({ runId: 7, workflowId: 'call-7', attempt: 1 });
    await steps.concludeCall({ runId: 7 } as never);
    expect(emitted).toEqual(['call.started/7', 'call.ended/7']);
  });

  it('emits call.started for an inbound call once it is answered, before its pre-call fetch', async () => {
    const happened: string[] = [];
    const answering = withInboundCallStarted(
      {
        preCallFetch: ({ runId }) => {
          happened.push(`fetch/${runId}`);
          return Promise.resolve({ fetched: false });
        },
      },
      (runId, type) => {
        happened.push(`${type}/${runId}`);
        return Promise.resolve();
      },
    );
    await answering.preCallFetch({ runId: 3, direction: 'inbound' });
    await answering.preCallFetch({ runId: 4, direction: 'outbound' });
    expect(happened).toEqual(['call.started/3', 'fetch/3', 'fetch/4']);
  });

  it('emits call_analyzed only when the analysis stored a result', async () => {
    const emitted: string[] = [];
    let analyzed = false;
    const analysis = withAnalysisEvent(
      { analyzeRun: () => Promise.resolve({ analyzed, totalTokens: 0 }) },
      (runId, analysisId) => {
        emitted.push(`${runId}/${analysisId}`);
        return Promise.resolve();
      },
    );
    await analysis.analyzeRun({ runId: 9, analysisId: 'call' });
    analyzed = true;
    await analysis.analyzeRun({ runId: 9, analysisId: 'call' });
    await analysis.analyzeRun({ runId: 9, analysisId: 'rerun-1' });
    expect(emitted).toEqual(['9/call', '9/rerun-1']);
  });

  it('gives each event a stable id: one per run and type, one per analysis', () => {
    expect(callEventId(9, 'call.ended')).toBe(callEventId(9, 'call.ended'));
    expect(callEventId(9, 'call.ended')).not.toBe(callEventId(9, 'call.started'));
    expect(analysisEventId(9, 'call')).toBe(analysisEventId(9, 'call'));
    expect(analysisEventId(9, 'call')).not.toBe(analysisEventId(9, 'rerun-1'));
    expect(analysisEventId(9, 'call')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
