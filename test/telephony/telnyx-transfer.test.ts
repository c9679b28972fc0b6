import { ProviderError, type TelephonyTransfer, type WebhookRequest } from '../../telephony/provider';
import { telnyxProvider, type TelnyxConfig } from '../../telephony/providers/telnyx';
import { FakeProviderServer } from './helpers/fake-provider-server';
import { transferRequest } from './helpers/transfer-request';

const config: TelnyxConfig = { api_key: 'KEY_test_secret_value', connection_id: '1293384261075731499' };
const callControlId = 'v3:MdI91X4lWFEs7IgbBEOT9M4AigoY08M0WWZFISt1Yw2axZ_IiE4pqg';
const legControlId = 'v3:leg-b-0123456789';
const transfer = transferRequest('telnyx', {
  providerCallId: callControlId,
  destination: '+15551239999',
  from: '+15550001111',
  ringTimeoutSeconds: 20,
});
const clientState = (transferId: string) => Buffer.from(transferId).toString('base64');

let server: FakeProviderServer;
let telnyx: TelephonyTransfer;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  telnyx = telnyxProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000 }).transfer!;
});

describe('start', () => {
  it("sends the call's transfer command: destination, ring timeout, callback, the transfer as the leg's state", async () => {
    server.answer({ status: 200, body: { data: { result: 'ok' } } });

    const { transferId } = await telnyx.start(transfer);

    expect(transferId).toMatch(/^tr[0-9a-f]{24}$/);
    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual([
      'POST',
      `/v2/calls/${encodeURIComponent(callControlId)}/actions/transfer`,
    ]);
    expect(request.headers.authorization).toBe('Bearer KEY_test_secret_value');
    expect(JSON.parse(request.body)).toEqual({
      to: '+15551239999',
      from: '+15550001111',
      timeout_secs: 20,
      webhook_url: transfer.transferCallbackUrl,
      webhook_url_method: 'POST',
      target_leg_client_state: clientState(transferId),
      command_id: `transfer-${transferId}`,
    });
  });

  it('names the same transfer, and the same command, for a retried start', async () => {
    server.answer({ status: 200, body: { data: { result: 'ok' } } }, { status: 200, body: { data: { result: 'ok' } } });

    const first = await telnyx.start(transfer);
    const again = await telnyx.start({ ...transfer, from: null, destination: 'sip:desk@pbx.example.com' });

    expect(again).toEqual(first);
    const body = JSON.parse(server.requests[1]!.body) as Record<string, unknown>;
    expect(body.command_id).toBe(`transfer-${first.transferId}`);
    expect(body.to).toBe('sip:desk@pbx.example.com');
    expect(body).not.toHaveProperty('from');
  });

  it("turns Telnyx's refusal into a ProviderError with its detail", async () => {
    server.answer({
      status: 422,
      body: { errors: [{ code: '90018', title: 'Call has already ended', detail: 'This call is no longer active.' }] },
    });
    await expect(telnyx.start(transfer)).rejects.toThrow('Telnyx answered 422: This call is no longer active.');
  });
});

describe('cancel and status', () => {
  const transferId = 'tr0123456789abcdef01234567';
  const activeCalls = (calls: { call_control_id: string; client_state: string | null }[]) => ({
    status: 200,
    body: {
      data: calls.map((call) => ({ ...call, record_type: 'call', call_leg_id: 'leg', call_session_id: 'session' })),
      meta: { total_pages: 1, total_results: calls.length, page_number: 1, page_size: 250 },
    },
  });

  it("hangs up the connection's active leg that carries the transfer's state", async () => {
    server.answer(
      activeCalls([
        { call_control_id: callControlId, client_state: clientState('run_id=42') },
        { call_control_id: legControlId, client_state: clientState(transferId) },
      ]),
      { status: 200, body: { data: { result: 'ok' } } },
    );

    await telnyx.cancel(callControlId, transferId);

    const [list, hangup] = server.requests;
    expect([list?.method, list?.path]).toEqual(['GET', `/v2/connections/${config.connection_id}/active_calls`]);
    expect([hangup?.method, hangup?.path]).toEqual([
      'POST',
      `/v2/calls/${encodeURIComponent(legControlId)}/actions/hangup`,
    ]);
  });

  it('does nothing when the leg is no longer up', async () => {
    server.answer(activeCalls([{ call_control_id: callControlId, client_state: null }]));
    await telnyx.cancel(callControlId, transferId);
    expect(server.requests).toHaveLength(1);
  });

  it("leaves the transfer to its events while the caller's call is up, and reads a caller gone as canceled", async () => {
    server.answer({ status: 200, body: { data: { call_control_id: callControlId, is_alive: true } } });
    await expect(telnyx.status(callControlId, transferId)).resolves.toBeNull();
    expect(server.onlyRequest().path).toBe(`/v2/calls/${encodeURIComponent(callControlId)}`);

    server.answer({ status: 200, body: { data: { call_control_id: callControlId, is_alive: false } } });
    await expect(telnyx.status(callControlId, transferId)).resolves.toMatchObject({ status: 'canceled', transferId });

    server.answer({ status: 404, body: { errors: [{ title: 'Resource not found' }] } });
    await expect(telnyx.status(callControlId, transferId)).resolves.toMatchObject({ status: 'canceled' });
  });
});

describe('parseWebhook', () => {
  const transferId = 'tr0123456789abcdef01234567';
  /** An event of the transferred leg, as Telnyx posts it to the transfer's `webhook_url`. */
  const event = (eventType: string, payload: Record<string, unknown> = {}): WebhookRequest => ({
    method: 'POST',
    url: transfer.transferCallbackUrl,
    headers: { 'content-type': 'application/json' },
    rawBody: JSON.stringify({
      data: {
        record_type: 'event',
        event_type: eventType,
        id: '0ccc7b54-4df3-4bca-a65a-3da1ecc777f0',
        occurred_at: '2026-03-02T10:15:01.000000Z',
        payload: {
          call_control_id: legControlId,
          call_leg_id: 'leg-b',
          call_session_id: 'session',
          connection_id: config.connection_id,
          client_state: clientState(transferId),
          from: '+15550001111',
          to: '+15551239999',
          ...payload,
        },
      },
      meta: { attempt: 1, delivered_to: transfer.transferCallbackUrl },
    }),
  });

  it.each([
    ['call.initiated', {}, 'ringing'],
    ['call.answered', {}, 'answered'],
    ['call.bridged', {}, 'answered'],
    ['call.hangup', { hangup_cause: 'normal_clearing', sip_hangup_cause: '200' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'user_busy', sip_hangup_cause: '486' }, 'busy'],
    ['call.hangup', { hangup_cause: 'timeout', sip_hangup_cause: '408' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'no_answer' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'originator_cancel', sip_hangup_cause: '487' }, 'canceled'],
    ['call.hangup', { hangup_cause: 'call_rejected', sip_hangup_cause: '603' }, 'failed'],
    ['call.hangup', { hangup_cause: 'unspecified', sip_hangup_cause: '480' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'unspecified', sip_hangup_cause: '503' }, 'failed'],
  ])('reads %s %j as %s, the transfer from its client_state', (eventType, payload, status) => {
    expect(telnyx.parseWebhook(event(eventType, payload))).toMatchObject({
      status,
      transferId,
      providerCallId: legControlId,
    });
  });

  it('refuses events that say nothing of a transfer', () => {
    expect(() => telnyx.parseWebhook(event('call.playback.started'))).toThrow(ProviderError);
    expect(() => telnyx.parseWebhook(event('call.answered', { client_state: null }))).toThrow(
      'Telnyx transfer event names no transfer (client_state)',
    );
    expect(() => telnyx.parseWebhook({ ...event('call.answered'), rawBody: '[]' })).toThrow(ProviderError);
  });
});
