import { webCallStatus } from '../../telephony/providers/web/adapter';

const now = new Date('2026-09-21T10:00:00Z');
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe('the status of a web call', () => {
  it('is answered while the browser may still join, and no-answer once the token expired unused', () => {
    const waiting = { runId: 1, joinBy: at(10), startedAt: null, endedAt: null, durationSeconds: null };
    expect(webCallStatus(waiting, now)).toBe('answered');
    expect(webCallStatus({ ...waiting, joinBy: at(-1) }, now)).toBe('no-answer');
  });

  it('is answered while it lasts, completed once over, and no-answer when hung up before anyone joined', () => {
    const started = { runId: 1, joinBy: at(-20), startedAt: at(-25), endedAt: null, durationSeconds: null };
    expect(webCallStatus(started, now)).toBe('answered');
    expect(webCallStatus({ ...started, endedAt: at(-1), durationSeconds: 24 }, now)).toBe('completed');
    expect(webCallStatus({ ...started, startedAt: null, endedAt: at(-1) }, now)).toBe('no-answer');
  });
});
