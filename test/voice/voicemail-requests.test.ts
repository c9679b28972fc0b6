import { Client } from 'pg';
import { createLogger } from '../../platform/logger';
import {
  listenForVoicemailRequests,
  MAX_VOICEMAIL_PAYLOAD_BYTES,
  VOICEMAIL_CHANNEL,
  voicemailPayload,
  VoicemailRequests,
  type VoicemailRequest,
} from '../../voice/pipeline/voicemail-requests';
import { useTestServices } from '../helpers/services';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();

describe('voicemail requests in one API process', () => {
  it('go to the conversation of their run, and wait a while for one that has not registered yet', () => {
    let now = 0;
    const requests = new VoicemailRequests(() => now);
    const spoken: string[] = [];
    const stop = requests.register(1, (text) => spoken.push(`1: ${text}`));
    requests.deliver({ runId: 1, text: 'Call us back.' });
    requests.deliver({ runId: 2, text: 'Early.' });
    expect(spoken).toEqual(['1: Call us back.']);
    now = 29_000;
    requests.register(2, (text) => spoken.push(`2: ${text}`));
    expect(spoken).toEqual(['1: Call us back.', '2: Early.']);
    // A conversation that ended takes no more requests; one for it then waits like any other.
    stop();
    requests.deliver({ runId: 1, text: 'Again.' });
    expect(spoken).toHaveLength(2);
    expect(requests.waiting).toBe(1);
  });

  it('forget a request whose conversation is elsewhere once it is old, and keep a bounded number', () => {
    let now = 0;
    const requests = new VoicemailRequests(() => now);
    requests.deliver({ runId: 3, text: 'Elsewhere.' });
    now = 31_000;
    const spoken: string[] = [];
    requests.register(3, (text) => spoken.push(text));
    expect(spoken).toEqual([]);
    for (let runId = 10; runId < 10_020; runId++) requests.deliver({ runId, text: 'Flood.' });
    expect(requests.waiting).toBe(10_000);
  });

  it('fit a NOTIFY payload, or are refused', () => {
    expect(voicemailPayload({ runId: 1, text: 'Hello.' })).toBe('{"runId":1,"text":"Hello."}');
    expect(voicemailPayload({ runId: 1, text: 'é'.repeat(MAX_VOICEMAIL_PAYLOAD_BYTES / 2) })).toBeNull();
  });
});

describe('voicemail requests between processes (PostgreSQL LISTEN/NOTIFY)', () => {
  const log = createLogger('silent', 'voicemail-requests-test');

  async function notify(payload: string): Promise<void> {
    const client = new Client({ connectionString: services.db.url });
    await client.connect();
    try {
      await client.query('SELECT pg_notify($1, $2)', [VOICEMAIL_CHANNEL, payload]);
    } finally {
      await client.end();
    }
  }

  it('reach the listening process, which ignores malformed ones and listens again after losing its connection', async () => {
    const requests = new VoicemailRequests();
    const heard: VoicemailRequest[] = [];
    requests.register(41, (text) => heard.push({ runId: 41, text }));
    const listener = await listenForVoicemailRequests(services.db.url, requests, log);
    try {
      await notify('not json');
      await notify(JSON.stringify({ runId: -1, text: 'Negative.' }));
      await notify(voicemailPayload({ runId: 41, text: 'Please call us back.' }) ?? '');
      await waitFor('the request', () => Promise.resolve(heard.length > 0));
      expect(heard).toEqual([{ runId: 41, text: 'Please call us back.' }]);

      // The listening connection is killed (a PostgreSQL restart, a proxy timeout): it comes back.
      await services.db.dataSource.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'switchboard-voicemail' AND datname = current_database()`,
      );
      await waitFor('the listener to be back', async () => {
        const [row] = await services.db.dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'switchboard-voicemail' AND datname = current_database() AND query ILIKE 'LISTEN%'`,
        );
        return (row?.n ?? 0) > 0;
      });
      await notify(voicemailPayload({ runId: 41, text: 'Second.' }) ?? '');
      await waitFor('the second request', () => Promise.resolve(heard.length > 1));
      expect(heard.at(-1)).toEqual({ runId: 41, text: 'Second.' });
    } finally {
      await listener.close();
    }
  }, 30_000);
});
