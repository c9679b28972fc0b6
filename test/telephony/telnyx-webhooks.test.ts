import { createPrivateKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { ProviderError, type CallStatus, type WebhookRequest } from '../../telephony/provider';
import { telnyxProvider } from '../../telephony/providers/telnyx';
import { telnyxPublicKey } from '../../telephony/providers/telnyx/signature';

const url = 'https://sb.example.com/api/v1/telephony/telnyx/status/42';

function webhook(rawBody: string, headers: Record<string, string> = {}): WebhookRequest {
  return { method: 'POST', url, headers, rawBody };
}

function telnyxEvent(eventType: string, payload: Record<string, unknown> = {}): string {
  return JSON.stringify({
    data: {
      record_type: 'event',
      event_type: eventType,
      id: '0ccc7b54-4df3-4bca-a65a-3da1ecc777f0',
      occurred_at: '2018-02-02T22:25:27.521992Z',
      payload: {
        call_control_id: 'v3:abc',
        connection_id: '7267',
        from: '+35319605860',
        to: '+35319605861',
        ...payload,
      },
    },
    meta: { attempt: 1, delivered_to: url },
  });
}

describe('parseStatusWebhook', () => {
  const telnyx = telnyxProvider.create({ api_key: 'k' });

  it.each<[string, Record<string, unknown>, CallStatus]>([
    ['call.initiated', { direction: 'outgoing', state: 'bridging' }, 'initiated'],
    ['call.answered', {}, 'answered'],
    ['call.machine.detection.ended', { result: 'human' }, 'answered'],
    ['call.machine.detection.ended', { result: 'not_sure' }, 'answered'],
    ['call.machine.detection.ended', { result: 'machine' }, 'voicemail'],
    ['call.hangup', { hangup_cause: 'normal_clearing', sip_hangup_cause: '200' }, 'completed'],
    ['call.hangup', { hangup_cause: 'time_limit' }, 'completed'],
    ['call.hangup', { hangup_cause: 'user_busy', sip_hangup_cause: '486' }, 'busy'],
    ['call.hangup', { hangup_cause: 'timeout' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'no_answer', sip_hangup_cause: '480' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'originator_cancel', sip_hangup_cause: '487' }, 'canceled'],
    ['call.hangup', { hangup_cause: 'call_rejected', sip_hangup_cause: '603' }, 'failed'],
    ['call.hangup', { hangup_cause: 'unallocated_number', sip_hangup_cause: '404' }, 'failed'],
    ['call.hangup', { hangup_cause: 'not_found' }, 'failed'],
    ['call.hangup', { hangup_cause: 'unspecified', sip_hangup_cause: '486' }, 'busy'],
    ['call.hangup', { hangup_cause: 'unspecified', sip_hangup_cause: '480' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'unspecified', sip_hangup_cause: 'unspecified' }, 'completed'],
  ])('%s %j → %s', (eventType, payload, status) => {
    const rawBody = telnyxEvent(eventType, payload);
    expect(telnyx.parseStatusWebhook(webhook(rawBody))).toEqual({
      status,
      providerCallId: 'v3:abc',
      raw: JSON.parse(rawBody) as unknown,
    });
  });

  it.each([
    ['an event without a call status', telnyxEvent('streaming.started')],
    ['an unknown machine-detection result', telnyxEvent('call.machine.detection.ended', { result: 'fax' })],
    ['a body that is not an event', JSON.stringify({ hello: 'world' })],
    ['a body that is not JSON', 'event_type=call.hangup'],
  ])('refuses %s', (_what, rawBody) => {
    expect(() => telnyx.parseStatusWebhook(webhook(rawBody))).toThrow(ProviderError);
  });
});

describe('verifyWebhook', () => {
  const now = new Date('2023-11-14T22:13:20.000Z');
  const timestamp = String(now.getTime() / 1000);
  const rawBody = telnyxEvent('call.hangup', { hangup_cause: 'user_busy', sip_hangup_cause: '486' });
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicKeyBase64 = rawPublicKey(publicKey).toString('base64');

  function signed(body: string, at: string, key: KeyObject = privateKey): WebhookRequest {
    const signature = sign(null, Buffer.from(`${at}|${body}`), key).toString('base64');
    return webhook(body, { 'telnyx-signature-ed25519': signature, 'telnyx-timestamp': at });
  }

  function verifier(key: string | undefined, at: Date = now) {
    return telnyxProvider.create({ api_key: 'k', webhook_public_key: key }, { now: () => at });
  }

  it('accepts a webhook signed with the account key', () => {
    expect(verifier(publicKeyBase64).verifyWebhook(signed(rawBody, timestamp))).toBe(true);
  });

  it('accepts a signature up to five minutes old or early', () => {
    expect(verifier(publicKeyBase64, new Date(now.getTime() + 300_000)).verifyWebhook(signed(rawBody, timestamp))).toBe(
      true,
    );
    expect(verifier(publicKeyBase64, new Date(now.getTime() - 300_000)).verifyWebhook(signed(rawBody, timestamp))).toBe(
      true,
    );
  });

  it('rejects a tampered body, a moved timestamp and another key', () => {
    const request = signed(rawBody, timestamp);
    const otherKey = generateKeyPairSync('ed25519').privateKey;
    expect(verifier(publicKeyBase64).verifyWebhook({ ...request, rawBody: rawBody.replace('486', '200') })).toBe(false);
    expect(
      verifier(publicKeyBase64).verifyWebhook({
        ...request,
        headers: { ...request.headers, 'telnyx-timestamp': String(Number(timestamp) + 1) },
      }),
    ).toBe(false);
    expect(verifier(publicKeyBase64).verifyWebhook(signed(rawBody, timestamp, otherKey))).toBe(false);
  });

  it('rejects a stale or future signature (replay window of 300 s)', () => {
    expect(verifier(publicKeyBase64, new Date(now.getTime() + 301_000)).verifyWebhook(signed(rawBody, timestamp))).toBe(
      false,
    );
    expect(verifier(publicKeyBase64, new Date(now.getTime() - 301_000)).verifyWebhook(signed(rawBody, timestamp))).toBe(
      false,
    );
  });

  it('rejects missing headers, a malformed signature and a configuration without a public key', () => {
    const request = signed(rawBody, timestamp);
    expect(verifier(publicKeyBase64).verifyWebhook(webhook(rawBody))).toBe(false);
    expect(
      verifier(publicKeyBase64).verifyWebhook({
        ...request,
        headers: { ...request.headers, 'telnyx-signature-ed25519': 'bm90IGEgc2lnbmF0dXJl' },
      }),
    ).toBe(false);
    expect(
      verifier(publicKeyBase64).verifyWebhook({
        ...request,
        headers: { ...request.headers, 'telnyx-timestamp': `${timestamp}.5` },
      }),
    ).toBe(false);
    expect(verifier(undefined).verifyWebhook(request)).toBe(false);
    expect(verifier('dG9vIHNob3J0').verifyWebhook(request)).toBe(false);
  });

  describe('test vectors (provider-wire-formats.md §4.4)', () => {
    const rfc8032Test1 = {
      secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
      public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
      emptyMessageSignature:
        'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    };
    const telnyxVector = {
      publicKey: '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
      timestamp: '1700000000',
      body: '{"data":{"event_type":"call.hangup","id":"0ccc7b54-4df3-4bca-a65a-3da1ecc777f0","occurred_at":"2023-11-14T22:13:20.000000Z","payload":{"call_control_id":"v3:abc","hangup_cause":"user_busy","sip_hangup_cause":"486"},"record_type":"event"},"meta":{"attempt":1,"delivered_to":"https://example.com/telnyx"}}',
      signature: 'OyFtS//SX+VZlnNHVmzCyemtsQKN4J9KEM4Cxudfp020i3jy4WxuqQct4ePUY6N/bLxcsad9IrI8MKjokFtaDw==',
    };

    it('RFC 8032 §7.1 TEST 1: the raw public key imports and verifies the empty-message signature', () => {
      const key = telnyxPublicKey(Buffer.from(rfc8032Test1.public, 'hex').toString('base64'));
      const signature = Buffer.from(rfc8032Test1.emptyMessageSignature, 'hex');
      expect(key && verify(null, Buffer.alloc(0), key, signature)).toBe(true);
      // The secret half of the vector signs to the same bytes (Ed25519 is deterministic).
      const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
      const secret = createPrivateKey({
        key: Buffer.concat([pkcs8Prefix, Buffer.from(rfc8032Test1.secret, 'hex')]),
        format: 'der',
        type: 'pkcs8',
      });
      expect(sign(null, Buffer.alloc(0), secret).toString('hex')).toBe(rfc8032Test1.emptyMessageSignature);
    });

    it('the Telnyx-format vector signed with the RFC 8032 key verifies, and not once tampered or stale', () => {
      expect(Buffer.from(telnyxVector.publicKey, 'base64').toString('hex')).toBe(rfc8032Test1.public);
      const request = webhook(telnyxVector.body, {
        'telnyx-signature-ed25519': telnyxVector.signature,
        'telnyx-timestamp': telnyxVector.timestamp,
      });
      const at = new Date(Number(telnyxVector.timestamp) * 1000 + 10_000);
      expect(verifier(telnyxVector.publicKey, at).verifyWebhook(request)).toBe(true);
      expect(verifier(telnyxVector.publicKey, at).verifyWebhook({ ...request, rawBody: `${telnyxVector.body} ` })).toBe(
        false,
      );
      const late = new Date(Number(telnyxVector.timestamp) * 1000 + 301_000);
      expect(verifier(telnyxVector.publicKey, late).verifyWebhook(request)).toBe(false);
    });
  });
});

/** The last 32 bytes of an Ed25519 SPKI DER are the raw key, which is what Telnyx shows. */
function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(-32);
}
