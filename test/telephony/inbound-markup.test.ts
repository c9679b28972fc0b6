import { randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { answerUrls } from '../../telephony/inbound';
import type { AnswerTarget, ProviderReply, TelephonyProvider, WebhookRequest } from '../../telephony/provider';
import { ariProvider } from '../../telephony/providers/ari';
import { ariEndpointPolicy } from '../../telephony/providers/ari/endpoint';
import { cloudonixProvider } from '../../telephony/providers/cloudonix';
import { plivoProvider } from '../../telephony/providers/plivo';
import { simulatorAnswering, simulatorInbound } from '../../telephony/providers/simulator/inbound';
import { telnyxProvider } from '../../telephony/providers/telnyx';
import { twilioProvider } from '../../telephony/providers/twilio';
import { vobizProvider } from '../../telephony/providers/vobiz';
import { vonageProvider } from '../../telephony/providers/vonage';
import { Secrets } from '../../telephony/secrets';
import { mediaTokenKey, verifyMediaToken } from '../../voice/media-token';
import { FakeProviderServer } from './helpers/fake-provider-server';

const target: AnswerTarget = {
  runId: 123,
  providerCallId: 'CALL-1',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/PROVIDER/media/123',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/PROVIDER/status/123',
};
const targetFor = (provider: string): AnswerTarget => ({
  ...target,
  mediaStreamUrl: target.mediaStreamUrl.replace('PROVIDER', provider),
  statusCallbackUrl: target.statusCallbackUrl.replace('PROVIDER', provider),
});

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseAttributeValue: false });
const parseXml = (reply: ProviderReply) => {
  expect(reply.contentType).toBe('text/xml');
  expect(reply.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  return xml.parse(reply.body) as Record<string, Record<string, unknown>>;
};

const form = (fields: Record<string, string>, url = 'https://sb.example.com/inbound'): WebhookRequest => ({
  method: 'POST',
  url,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  rawBody: new URLSearchParams(fields).toString(),
});
const json = (body: unknown): WebhookRequest => ({
  method: 'POST',
  url: 'https://sb.example.com/inbound',
  headers: { 'content-type': 'application/json' },
  rawBody: JSON.stringify(body),
});

const twilio = twilioProvider.create({ account_sid: 'AC1', auth_token: 'token', amd_enabled: false });
const plivo = plivoProvider.create({ auth_id: 'MA1', auth_token: 'token' });
const vobiz = vobizProvider.create({ auth_id: 'MA1', auth_token: 'token' });
const vonage = vonageProvider.create({ api_key: 'k', api_secret: 's', application_id: 'app', private_key: 'pem' });
const cloudonix = cloudonixProvider.create({ bearer_token: 'XI1', domain_id: 'acme' });

describe('Twilio', () => {
  it('reads the Voice URL request', () => {
    const request = form({ CallSid: 'CA1', To: '+14155550100', From: '+14155550199', Direction: 'inbound' });
    expect(twilioProvider.inbound.parse(request)).toEqual({
      calledNumber: '+14155550100',
      callerNumber: '+14155550199',
      providerCallId: 'CA1',
      // No StirVerstat: the caller id is not verified.
      callerIdVerified: false,
      raw: expect.objectContaining({ CallSid: 'CA1' }),
    });
    expect(() => twilioProvider.inbound.parse(form({ To: '+14155550100' }))).toThrow(
      'Twilio inbound webhook has no CallSid',
    );
  });

  it('answers <Connect><Stream> at the media endpoint with the run id, then <Hangup/>', async () => {
    const doc = parseXml(await twilio.answerCall(targetFor('twilio')));
    expect(doc.Response).toEqual({
      Connect: {
        Stream: {
          '@_url': 'wss://sb.example.com/api/v1/telephony/twilio/media/123',
          Parameter: { '@_name': 'run_id', '@_value': '123' },
        },
      },
      Hangup: '',
    });
  });

  it('carries the media token of answerUrls in the stream URL path', async () => {
    const secrets = new Secrets(randomBytes(32));
    const urls = answerUrls('https://sb.example.com/', 'twilio', 123, secrets);
    const doc = parseXml(await twilio.answerCall({ runId: 123, providerCallId: 'CA1', ...urls }));
    const streamUrl = (doc.Response?.Connect as { Stream: { '@_url': string } }).Stream['@_url'];
    // Twilio takes no query string in <Stream url>: the token is the last path segment.
    const [, token = ''] =
      /^wss:\/\/sb\.example\.com\/api\/v1\/telephony\/twilio\/media\/123\/([^/?]+)$/.exec(streamUrl) ?? [];
    expect(verifyMediaToken(mediaTokenKey(secrets), token, { provider: 'twilio', runId: 123 })).toBe('valid');
    expect(verifyMediaToken(mediaTokenKey(secrets), token, { provider: 'twilio', runId: 124 })).toBe('invalid');
  });

  it('rejects with <Reject/>, with or without a configuration', async () => {
    expect(parseXml(await twilio.rejectCall('CA1')).Response).toEqual({ Reject: { '@_reason': 'rejected' } });
    expect(parseXml(twilioProvider.inbound.refuseUnknown()).Response).toEqual({ Reject: { '@_reason': 'rejected' } });
  });
});

describe.each([
  ['plivo', plivoProvider, plivo],
  ['vobiz', vobizProvider, vobiz],
] as const)('%s', (name, definition, adapter) => {
  it('reads the answer URL request (numbers without +)', () => {
    const request = form({ CallUUID: 'uuid-1', To: '14155550100', From: '14155550199', Event: 'StartApp' });
    expect(definition.inbound.parse(request)).toMatchObject({
      calledNumber: '14155550100',
      callerNumber: '14155550199',
      providerCallId: 'uuid-1',
    });
  });

  it('answers a bidirectional <Stream> at the media endpoint with the run id', async () => {
    const doc = parseXml(await adapter.answerCall(targetFor(name)));
    expect(doc.Response).toEqual({
      Stream: {
        '#text': `wss://sb.example.com/api/v1/telephony/${name}/media/123`,
        '@_bidirectional': 'true',
        '@_keepCallAlive': 'true',
        '@_contentType': 'audio/x-mulaw;rate=8000',
        '@_streamTimeout': '86400',
        '@_extraHeaders': 'runId=123',
      },
    });
  });

  it('rejects with <Hangup reason="rejected"/>', async () => {
    expect(parseXml(await adapter.rejectCall('uuid-1')).Response).toEqual({ Hangup: { '@_reason': 'rejected' } });
    expect(parseXml(definition.inbound.refuseUnknown()).Response).toEqual({ Hangup: { '@_reason': 'rejected' } });
  });
});

describe('Vonage', () => {
  it('reads the answer webhook as a GET query or a POST JSON body', () => {
    const get: WebhookRequest = {
      method: 'GET',
      url: 'https://sb.example.com/inbound?to=442079460000&from=447700900000&uuid=u-1&conversation_uuid=CON-1',
      headers: {},
      rawBody: '',
    };
    expect(vonageProvider.inbound.parse(get)).toMatchObject({
      calledNumber: '442079460000',
      callerNumber: '447700900000',
      providerCallId: 'u-1',
    });
    expect(vonageProvider.inbound.parse(json({ to: '442079460000', from: '447700900000', uuid: 'u-2' }))).toMatchObject(
      { providerCallId: 'u-2' },
    );
  });

  it('answers an NCCO connecting a websocket at the media endpoint with the run id header', async () => {
    const reply = await vonage.answerCall(targetFor('vonage'));
    expect(reply.contentType).toBe('application/json');
    expect(JSON.parse(reply.body)).toEqual([
      {
        action: 'connect',
        endpoint: [
          {
            type: 'websocket',
            uri: 'wss://sb.example.com/api/v1/telephony/vonage/media/123',
            'content-type': 'audio/l16;rate=16000',
            headers: { run_id: '123' },
          },
        ],
      },
    ]);
  });

  it('rejects with a talk action only, which ends the call', async () => {
    const ncco = JSON.parse((await vonage.rejectCall('u-1')).body) as { action: string }[];
    expect(ncco.map((action) => action.action)).toEqual(['talk']);
  });
});

describe('Cloudonix', () => {
  it('reads the voice application request (JSON)', () => {
    expect(
      cloudonixProvider.inbound.parse(json({ CallSid: 'tok-1', To: '+14155550100', From: '+1415' })),
    ).toMatchObject({
      calledNumber: '+14155550100',
      providerCallId: 'tok-1',
    });
  });

  it('answers cXML <Connect><Stream> at the media endpoint', async () => {
    const doc = parseXml(await cloudonix.answerCall(targetFor('cloudonix')));
    expect(doc.Response).toEqual({
      Connect: { Stream: { '@_url': 'wss://sb.example.com/api/v1/telephony/cloudonix/media/123' } },
      Hangup: '',
    });
    expect(parseXml(await cloudonix.rejectCall('tok-1')).Response).toEqual({ Reject: { '@_reason': 'rejected' } });
  });
});

describe('simulator', () => {
  it('reads its own inbound webhook and answers with its JSON markup', async () => {
    expect(simulatorInbound.parse(json({ call_id: 'SIM1', from: '+14155550199', to: '+14155550100' }))).toMatchObject({
      calledNumber: '+14155550100',
      callerNumber: '+14155550199',
      providerCallId: 'SIM1',
    });
    expect(() => simulatorInbound.parse(json({ to: '+1' }))).toThrow('not an inbound call');
    const reply = await simulatorAnswering.answerCall(targetFor('simulator'));
    expect(JSON.parse(reply.body)).toEqual({
      action: 'answer',
      stream_url: 'wss://sb.example.com/api/v1/telephony/simulator/media/123',
      status_callback_url: 'https://sb.example.com/api/v1/telephony/simulator/status/123',
    });
    expect(JSON.parse((await simulatorAnswering.rejectCall('SIM1')).body)).toEqual({ action: 'reject' });
  });
});

describe('call-control providers', () => {
  let server: FakeProviderServer;
  let telnyx: TelephonyProvider;
  let ari: TelephonyProvider;

  beforeAll(async () => {
    server = await FakeProviderServer.start();
    telnyx = telnyxProvider.create({ api_key: 'KEY1', connection_id: 'conn-1' }, { apiBaseUrl: server.url });
    ari = ariProvider.create(
      {
        ari_endpoint: server.url,
        app_name: 'sb',
        app_password: 'pw',
        ws_client_name: '',
        dial_string_template: 'PJSIP/{number}',
        stasis_app_name: 'switchboard_abc',
      },
      // The fake provider listens on loopback.
      { endpointPolicy: ariEndpointPolicy(true) },
    );
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  it('Telnyx: only call.initiated of an incoming call is a new call', () => {
    const initiated = {
      data: {
        event_type: 'call.initiated',
        payload: { call_control_id: 'v3:abc', direction: 'incoming', from: '+14155550199', to: '+14155550100' },
      },
    };
    expect(telnyxProvider.inbound.parse(json(initiated))).toMatchObject({
      calledNumber: '+14155550100',
      callerNumber: '+14155550199',
      providerCallId: 'v3:abc',
    });
    const answered = { data: { ...initiated.data, event_type: 'call.answered' } };
    expect(telnyxProvider.inbound.parse(json(answered))).toBeNull();
    const outgoing = { data: { ...initiated.data, payload: { ...initiated.data.payload, direction: 'outgoing' } } };
    expect(telnyxProvider.inbound.parse(json(outgoing))).toBeNull();
  });

  it('Telnyx: answers with the answer command streaming to the media endpoint', async () => {
    server.answer({ status: 200, body: { data: { result: 'ok' } } });
    const reply = await telnyx.answerCall({ ...targetFor('telnyx'), providerCallId: 'v3:abc' });
    expect(JSON.parse(reply.body)).toEqual({ status: 'received' });
    const request = server.onlyRequest();
    expect(request.path).toBe('/v2/calls/v3%3Aabc/actions/answer');
    expect(request.headers.authorization).toBe('Bearer KEY1');
    expect(JSON.parse(request.body)).toEqual({
      stream_url: 'wss://sb.example.com/api/v1/telephony/telnyx/media/123',
      stream_track: 'inbound_track',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
      webhook_url: 'https://sb.example.com/api/v1/telephony/telnyx/status/123',
      webhook_url_method: 'POST',
      client_state: Buffer.from('run_id=123').toString('base64'),
      command_id: 'answer-123',
    });
  });

  it('Telnyx: a refused answer command is a ProviderError; reject sends CALL_REJECTED and never throws', async () => {
    server.answer({ status: 422, body: { errors: [{ title: 'Call has already ended' }] } });
    await expect(telnyx.answerCall(targetFor('telnyx'))).rejects.toThrow('Call has already ended');
    server.reset();
    server.answer({ status: 500, body: {} });
    await expect(telnyx.rejectCall('v3:abc')).resolves.toEqual({
      contentType: 'application/json',
      body: '{"status":"received"}',
    });
    expect(server.onlyRequest().path).toBe('/v2/calls/v3%3Aabc/actions/reject');
    expect(JSON.parse(server.onlyRequest().body)).toEqual({ cause: 'CALL_REJECTED' });
  });

  it('ARI: an inbound StasisStart is a new call; our own originated channel is not', () => {
    const event = (args: string[]) => ({
      method: 'POST',
      url: '',
      headers: {},
      rawBody: JSON.stringify({
        type: 'StasisStart',
        args,
        channel: {
          id: '1700.1',
          state: 'Ring',
          caller: { number: '+14155550199' },
          dialplan: { exten: '+14155550100' },
        },
      }),
    });
    expect(ariProvider.inbound.parse(event([]))).toMatchObject({
      calledNumber: '+14155550100',
      callerNumber: '+14155550199',
      providerCallId: '1700.1',
    });
    expect(ariProvider.inbound.parse(event(['run_id=7']))).toBeNull();
    expect(ariProvider.inbound.parse({ ...event([]), rawBody: '{"type":"StasisEnd"}' })).toBeNull();
  });

  it('ARI: answers the channel, and refuses by hanging up as busy', async () => {
    server.answer({ status: 204 });
    await ari.answerCall({ ...targetFor('ari'), providerCallId: '1700.1' });
    expect(server.onlyRequest()).toMatchObject({ method: 'POST', path: '/ari/channels/1700.1/answer' });
    server.reset();
    server.answer({ status: 404, body: { message: 'Channel not found' } });
    await ari.rejectCall('1700.1');
    const hangup = server.onlyRequest();
    expect(hangup).toMatchObject({ method: 'DELETE', path: '/ari/channels/1700.1' });
    expect(hangup.query.get('reason')).toBe('busy');
  });
});
