import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatorCall } from '../../entities';
import type { OriginateRequest, ProviderContext, WebhookRequest } from '../../telephony/provider';
import { createSimulatorProvider } from '../../telephony/providers/simulator/adapter';
import type { SimulatorConfig } from '../../telephony/providers/simulator/config';
import { SimulatorDispatcher } from '../../telephony/providers/simulator/dispatcher';
import { Secrets } from '../../telephony/secrets';
import { useTestServices } from '../helpers/services';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const secrets = new Secrets(randomBytes(32));
const config: SimulatorConfig = { ring_seconds: 1, talk_seconds: 3, audio: false };

/** Receives the simulator's webhooks as they arrive. */
class WebhookReceiver {
  readonly received: WebhookRequest[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({
        method: request.method ?? '',
        url: this.url,
        headers: Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, String(value)])),
        rawBody: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(204).end();
    });
  });
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v1/telephony/simulator/status/1`;
  }
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let receiver: WebhookReceiver;
const dispatchers: SimulatorDispatcher[] = [];
beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  for (const dispatcher of dispatchers) dispatcher.close();
  await receiver.close();
});

/** A simulator over the test database with its own dispatcher, and a clock the test moves. */
function simulator(clock?: { now: Date }, overrides: Partial<SimulatorConfig> = {}) {
  const dispatcher = new SimulatorDispatcher();
  dispatchers.push(dispatcher);
  const context: ProviderContext = {
    dataSource: services.db.dataSource,
    secrets,
    ...(clock ? { now: () => clock.now } : {}),
  };
  return createSimulatorProvider({ ...config, ...overrides }, context, dispatcher);
}

const originateRequest = (to: string, overrides: Partial<OriginateRequest> = {}): OriginateRequest => ({
  runId: 1,
  to,
  from: '+14155550100',
  idempotencyKey: randomUUID(),
  statusCallbackUrl: receiver.url,
  answerUrl: 'http://127.0.0.1:1/answer',
  mediaStreamUrl: 'ws://127.0.0.1:1/media',
  ...overrides,
});

const at = (start: Date, seconds: number) => new Date(start.getTime() + seconds * 1000);

describe('outcomes by the last four digits', () => {
  it.each([
    ['+15551230486', 'busy'],
    ['+15551230408', 'no-answer'],
    ['+15551230503', 'failed'],
  ])('%s rings for ring_seconds, then is %s', async (to, outcome) => {
    const start = new Date('2026-01-01T10:00:00Z');
    const clock = { now: start };
    const provider = simulator(clock);
    const { providerCallId } = await provider.originate(originateRequest(to));

    clock.now = at(start, 0.5);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({ status: 'ringing' });
    clock.now = at(start, 1);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({
      status: outcome,
      durationSeconds: 0,
      providerCallId,
    });
    clock.now = at(start, 60);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({ status: outcome });
  });

  it('+15551230600 rings, is answered by a machine that beeps, records up to 30 s, then is voicemail', async () => {
    const start = new Date('2026-01-01T10:00:00Z');
    const clock = { now: start };
    const provider = simulator(clock);
    const { providerCallId } = await provider.originate(originateRequest('+15551230600'));

    clock.now = at(start, 0.5);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({ status: 'ringing' });
    clock.now = at(start, 1);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({
      status: 'answered',
      answeredBy: 'machine',
      providerCallId,
    });
    clock.now = at(start, 60);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({
      status: 'voicemail',
      durationSeconds: 30,
    });
  });

  it('a hang-up while the machine records ends the call as voicemail with the seconds recorded', async () => {
    const start = new Date('2026-01-01T10:00:00Z');
    const clock = { now: start };
    const provider = simulator(clock);
    const { providerCallId } = await provider.originate(originateRequest('+15551230600'));
    clock.now = at(start, 6);
    await provider.hangup(providerCallId);
    clock.now = at(start, 60);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({
      status: 'voicemail',
      durationSeconds: 5,
    });
  });

  it('answers any other number, talks for talk_seconds, then completes', async () => {
    const start = new Date('2026-01-01T10:00:00Z');
    const clock = { now: start };
    const provider = simulator(clock);
    const { providerCallId } = await provider.originate(originateRequest('+15551234567'));

    clock.now = at(start, 0.9);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({ status: 'ringing' });
    clock.now = at(start, 2.5);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({ status: 'answered' });
    clock.now = at(start, 4);
    await expect(provider.getCallStatus(providerCallId)).resolves.toMatchObject({
      status: 'completed',
      durationSeconds: 3,
    });
  });

  it('posts one webhook per distinct status change: a single completed one with zero ring and talk time', async () => {
    const before = receiver.received.length;
    const provider = simulator(undefined, { ring_seconds: 0, talk_seconds: 0 });
    const { providerCallId } = await provider.originate(originateRequest('+15551234568'));
    const mine = () => receiver.received.slice(before).filter((hook) => hook.rawBody.includes(providerCallId));
    for (let waited = 0; mine().length === 0 && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Give a second or third (duplicate) webhook the time to arrive, had it been sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mine()).toHaveLength(1);
    expect(JSON.parse(mine()[0]!.rawBody)).toMatchObject({ status: 'completed' });
  });

  it('answers null for a call it never placed', async () => {
    await expect(simulator().getCallStatus('SIMunknown')).resolves.toBeNull();
  });
});

describe('idempotency', () => {
  it('returns the first call for a repeated key and stores one row', async () => {
    const provider = simulator();
    const request = originateRequest('+15551234567');
    const first = await provider.originate(request);
    const again = await simulator().originate({ ...request, to: '+15550000486' });

    expect(again).toEqual(first);
    const rows = await services.db.dataSource
      .getRepository(SimulatorCall)
      .findBy({ idempotencyKey: request.idempotencyKey });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ toAddress: '+15551234567', plannedOutcome: 'answered' });
  });

  it('is safe when two processes originate the same key at once', async () => {
    const request = originateRequest('+15551234567');
    const results = await Promise.all([simulator().originate(request), simulator().originate(request)]);
    expect(results[0]).toEqual(results[1]);
  });
});

describe('a restart mid-call', () => {
  it('still yields the right status through getCallStatus in a new process', async () => {
    const start = new Date();
    const clock = { now: start };
    const before = simulator(clock);
    const { providerCallId } = await before.originate(originateRequest('+15551234567'));
    await expect(before.getCallStatus(providerCallId)).resolves.toMatchObject({ status: 'ringing' });
    dispatchers.at(-1)?.close();

    // A new provider instance with its own (empty) dispatcher, as after a restart.
    const after = simulator({ now: at(start, 2) });
    await expect(after.getCallStatus(providerCallId)).resolves.toMatchObject({ status: 'answered' });
    const later = simulator({ now: at(start, 10) });
    await expect(later.getCallStatus(providerCallId)).resolves.toMatchObject({
      status: 'completed',
      durationSeconds: 3,
    });
  });
});

describe('hangup', () => {
  it('cancels a ringing call and completes an answered one early', async () => {
    const start = new Date('2026-01-01T10:00:00Z');
    const clock = { now: start };
    const provider = simulator(clock);
    const ringing = await provider.originate(originateRequest('+15551234567'));
    const talking = await provider.originate(originateRequest('+15551234567'));

    clock.now = at(start, 0.5);
    await provider.hangup(ringing.providerCallId);
    clock.now = at(start, 2.2);
    await provider.hangup(talking.providerCallId);
    clock.now = at(start, 30);

    await expect(provider.getCallStatus(ringing.providerCallId)).resolves.toMatchObject({ status: 'canceled' });
    await expect(provider.getCallStatus(talking.providerCallId)).resolves.toMatchObject({
      status: 'completed',
      durationSeconds: 1,
    });
  });

  it('refuses an unknown call', async () => {
    await expect(simulator().hangup('SIMunknown')).rejects.toMatchObject({ status: 404 });
  });
});

describe('status webhooks', () => {
  it('posts each status change, signed, to the status callback URL', async () => {
    const provider = simulator(undefined, { ring_seconds: 0, talk_seconds: 1 });
    const { providerCallId } = await provider.originate(originateRequest('+15551234567'));
    const mine = () => receiver.received.filter((hook) => hook.rawBody.includes(providerCallId));
    await waitFor('the completed webhook', () => mine().some((hook) => hook.rawBody.includes('"completed"')));

    const events = mine().map((hook) => provider.parseStatusWebhook(hook));
    expect(events.at(-1)).toEqual({
      status: 'completed',
      providerCallId,
      durationSeconds: 1,
      raw: { call_id: providerCallId, status: 'completed', duration: 1 },
    });
    expect(events.map((event) => event.status)).toContain('answered');
    for (const hook of mine()) {
      expect(hook.headers['content-type']).toBe('application/json');
      expect(provider.verifyWebhook(hook)).toBe(true);
      expect(provider.verifyWebhook({ ...hook, rawBody: hook.rawBody.replace('"duration":', '"duration": ') })).toBe(
        false,
      );
    }
  });

  it('reports a hang-up at once and sends nothing more', async () => {
    const provider = simulator(undefined, { ring_seconds: 5 });
    const { providerCallId } = await provider.originate(originateRequest('+15551234567'));
    await provider.hangup(providerCallId);
    const mine = () => receiver.received.filter((hook) => hook.rawBody.includes(providerCallId));
    await waitFor('the canceled webhook', () => mine().some((hook) => hook.rawBody.includes('"canceled"')));
    expect(mine().map((hook) => provider.parseStatusWebhook(hook).status)).not.toContain('answered');
  });

  it('refuses a webhook signed under another key, or not signed', () => {
    const provider = simulator();
    const other = createSimulatorProvider(config, {
      dataSource: services.db.dataSource,
      secrets: new Secrets(randomBytes(32)),
    });
    const rawBody = JSON.stringify({ call_id: 'SIM1', status: 'completed', duration: 3 });
    expect(provider.verifyWebhook({ method: 'POST', url: receiver.url, headers: {}, rawBody })).toBe(false);
    expect(
      other.verifyWebhook({
        method: 'POST',
        url: receiver.url,
        headers: { 'x-simulator-signature': 'a'.repeat(64) },
        rawBody,
      }),
    ).toBe(false);
    expect(() =>
      provider.parseStatusWebhook({ method: 'POST', url: receiver.url, headers: {}, rawBody: '{}' }),
    ).toThrow('The simulator webhook body is not a status report');
  });
});

describe('configureInbound and readiness', () => {
  it('needs no provider configuration, but an active number to call from', async () => {
    const provider = simulator();
    await expect(provider.configureInbound('+15551234567', 'https://x/inbound')).resolves.toMatchObject({ ok: true });
    expect(provider.readiness([]).ready).toBe(false);
    expect(provider.readiness([{ address: '+15551234567', isActive: true, isDefaultCallerId: true }]).ready).toBe(true);
  });
});

describe('carrier behaviours a configuration asks for', () => {
  it('dial_error_status answers every dial with that status (5xx retryable, 4xx not)', async () => {
    await expect(
      simulator(undefined, { dial_error_status: 503 }).originate(originateRequest('+15551234567')),
    ).rejects.toMatchObject({ name: 'ProviderError', status: 503, retryable: true });
    await expect(
      simulator(undefined, { dial_error_status: 401 }).originate(originateRequest('+15551234567')),
    ).rejects.toMatchObject({ name: 'ProviderError', status: 401, retryable: false });
  });

  it('max_calls_per_second answers 429 with Retry-After: 1 to a dial too soon after the last from that number', async () => {
    const start = new Date('2026-01-01T11:00:00Z');
    const clock = { now: start };
    const from = `+1415555${Math.floor(1000 + Math.random() * 8999)}`;
    const provider = simulator(clock, { max_calls_per_second: 2 });
    const first = originateRequest('+15551234567', { from });
    await provider.originate(first);
    clock.now = at(start, 0.4);
    await expect(provider.originate(originateRequest('+15551234568', { from }))).rejects.toMatchObject({
      status: 429,
      retryable: true,
      retryAfterSeconds: 1,
    });
    // A repeat of a dial already placed is answered with its call, never refused.
    await expect(provider.originate(first)).resolves.toMatchObject({ providerCallId: expect.any(String) });
    clock.now = at(start, 0.5);
    await expect(provider.originate(originateRequest('+15551234568', { from }))).resolves.toMatchObject({
      providerCallId: expect.any(String),
    });
  });
});

describe('transfers', () => {
  const answeredCall = async (clock: { now: Date }, talkSeconds = 10) => {
    const provider = simulator(clock, { talk_seconds: talkSeconds });
    const { providerCallId } = await provider.originate(originateRequest('+15551230123'));
    return { provider, providerCallId, transfer: provider.transfer! };
  };
  const transferRequest = (providerCallId: string, destination: string) => ({
    runId: 1,
    providerCallId,
    destination,
    from: '+14155550100',
    mode: 'blind' as const,
    announcement: null,
    holdAudioUrl: 'http://127.0.0.1:1/api/v1/telephony/hold-audio.wav',
    holdAudioMp3Url: 'http://127.0.0.1:1/api/v1/telephony/hold-audio.mp3',
    ringTimeoutSeconds: 30,
    idempotencyKey: randomUUID(),
    transferCallbackUrl: receiver.url.replace('/status/', '/transfer/'),
    answerUrl: 'http://127.0.0.1:1/answer',
    mediaStreamUrl: 'ws://127.0.0.1:1/media',
  });

  it.each([
    ['+15551230999', 'answered'],
    ['+15551230486', 'busy'],
    ['+15551230503', 'failed'],
  ])('a destination %s rings for ring_seconds, then is %s', async (destination, outcome) => {
    const start = new Date('2026-01-01T10:00:00Z');
    const clock = { now: start };
    const { transfer, providerCallId } = await answeredCall(clock);
    clock.now = at(start, 2);
    const { transferId } = await transfer.start(transferRequest(providerCallId, destination));
    await expect(transfer.status(providerCallId, transferId)).resolves.toMatchObject({ status: 'ringing' });
    clock.now = at(start, 3);
    await expect(transfer.status(providerCallId, transferId)).resolves.toMatchObject({ status: outcome, transferId });
  });

  it('keeps a no-answer destination ringing until it is canceled, and a cancel is kept', async () => {
    const clock = { now: new Date('2026-01-01T10:00:00Z') };
    const { transfer, providerCallId } = await answeredCall(clock, 600);
    clock.now = at(clock.now, 2);
    const { transferId } = await transfer.start(transferRequest(providerCallId, '+15551230408'));
    clock.now = at(clock.now, 60);
    await expect(transfer.status(providerCallId, transferId)).resolves.toMatchObject({ status: 'ringing' });
    await transfer.cancel(providerCallId, transferId);
    const [row] = await services.db.dataSource.query<{ canceled_at: Date | null }[]>(
      'SELECT canceled_at FROM simulator_transfers WHERE transfer_id = $1',
      [transferId],
    );
    expect(row?.canceled_at).not.toBeNull();
    await expect(transfer.status(providerCallId, transferId)).resolves.toMatchObject({ status: 'canceled' });
  });

  it("ends a no-answer destination's ringing when the caller's call ends", async () => {
    const clock = { now: new Date('2026-01-01T10:00:00Z') };
    const { transfer, providerCallId } = await answeredCall(clock, 10);
    clock.now = at(clock.now, 2);
    const { transferId } = await transfer.start(transferRequest(providerCallId, '+15551230408'));
    clock.now = at(clock.now, 5);
    await expect(transfer.status(providerCallId, transferId)).resolves.toMatchObject({ status: 'ringing' });
    // The call talks for 10 s after 1 s of ringing: over 11 s after it started.
    clock.now = at(clock.now, 30);
    await expect(transfer.status(providerCallId, transferId)).resolves.toMatchObject({ status: 'canceled' });
  });

  it("keeps a warm transfer's announcement, what the person hears before the join; a blind one has none", async () => {
    const clock = { now: new Date('2026-01-01T10:00:00Z') };
    const { transfer, providerCallId } = await answeredCall(clock);
    clock.now = at(clock.now, 2);
    const announcement = 'I have a caller for you. They said: I want a refund. Connecting you now.';
    const warm = await transfer.start({
      ...transferRequest(providerCallId, '+15551230999'),
      mode: 'warm',
      announcement,
    });
    // A blind request carries none; one that did is not kept.
    const blind = await transfer.start({ ...transferRequest(providerCallId, '+15551230998'), announcement: 'unused' });
    const rows = await services.db.dataSource.query<{ transfer_id: string; announcement: string | null }[]>(
      'SELECT transfer_id, announcement FROM simulator_transfers WHERE transfer_id = ANY($1)',
      [[warm.transferId, blind.transferId]],
    );
    expect(Object.fromEntries(rows.map((row) => [row.transfer_id, row.announcement]))).toEqual({
      [warm.transferId]: announcement,
      [blind.transferId]: null,
    });
  });
});
