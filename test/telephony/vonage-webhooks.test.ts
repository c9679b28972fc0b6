import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { ProviderError, type CallStatus, type WebhookRequest } from '../../telephony/provider';
import { vonageProvider, type VonageConfig } from '../../telephony/providers/vonage';

const secret = 'qwertyuiopasdfghjklzxcvbnm123456';
const config: VonageConfig = {
  api_key: 'abcd1234',
  api_secret: 'api-secret-value',
  application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
  private_key: 'unused here',
  signature_secret: secret,
};
const url = 'https://sb.example.com/api/v1/telephony/vonage/status/42';

function webhook(rawBody: string, headers: Record<string, string> = {}): WebhookRequest {
  return { method: 'POST', url, headers, rawBody };
}

function vonageAt(at: Date, signatureSecret = secret) {
  return vonageProvider.create({ ...config, signature_secret: signatureSecret }, { now: () => at });
}

describe('parseStatusWebhook', () => {
  const vonage = vonageProvider.create(config);
  const common = {
    from: '14152739164',
    to: '19162255887',
    uuid: '63f61863-4a51-4f6b-86e1-46edebcf9356',
    conversation_uuid: 'CON-f972836a-550f-45fa-956c-12a2ab5b7d22',
    direction: 'outbound',
    timestamp: '2020-01-01T12:00:00.000Z',
  };

  it.each<[string, CallStatus]>([
    ['started', 'initiated'],
    ['ringing', 'ringing'],
    ['answered', 'answered'],
    ['human', 'answered'],
    ['machine', 'voicemail'],
    ['busy', 'busy'],
    ['rejected', 'busy'],
    ['timeout', 'no-answer'],
    ['unanswered', 'no-answer'],
    ['cancelled', 'no-answer'],
    ['failed', 'failed'],
    ['disconnected', 'completed'],
    ['complete', 'completed'],
  ])('%s → %s', (status, expected) => {
    const raw = { ...common, status };
    expect(vonage.parseStatusWebhook(webhook(JSON.stringify(raw)))).toEqual({
      status: expected,
      providerCallId: common.uuid,
      raw,
    });
  });

  it('completed → completed, with the duration in seconds', () => {
    const raw = {
      ...common,
      status: 'completed',
      timestamp: '2020-01-01T12:05:00.000Z',
      start_time: '2020-01-01T12:00:00.000Z',
      end_time: '2020-01-01T12:05:00.000Z',
      duration: '300',
      rate: '0.39',
      price: '1.95',
      network: '65512',
    };
    expect(vonage.parseStatusWebhook(webhook(JSON.stringify(raw)))).toEqual({
      status: 'completed',
      providerCallId: common.uuid,
      durationSeconds: 300,
      raw,
    });
  });

  it.each([
    ['an unknown status', JSON.stringify({ ...common, status: 'transfer' })],
    ['an event without a status (DTMF input)', JSON.stringify({ ...common, dtmf: { digits: '1' } })],
    ['a JSON array', '[]'],
    ['a body that is not JSON', 'status=completed'],
  ])('refuses %s', (_what, rawBody) => {
    expect(() => vonage.parseStatusWebhook(webhook(rawBody))).toThrow(ProviderError);
  });
});

describe('verifyWebhook', () => {
  const now = new Date('2026-01-01T12:00:00.000Z');
  const rawBody = JSON.stringify({ status: 'completed', uuid: '00000000-0000-0000-0000-000000000001' });
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  async function signedJwt(claims: Record<string, unknown>, key: string = secret, alg = 'HS256'): Promise<string> {
    return new SignJWT({ iss: 'Vonage', api_key: 'abcd1234', application_id: config.application_id, ...claims })
      .setProtectedHeader({ alg, typ: 'JWT' })
      .setIssuedAt(now.getTime() / 1000)
      .setJti('c5ba8f24-1a14-4c10-bfdf-3fbe8ce511b5')
      .sign(new TextEncoder().encode(key));
  }

  function bearer(token: string, body = rawBody): WebhookRequest {
    return webhook(body, { authorization: `Bearer ${token}` });
  }

  it('accepts a JWT signed with the signature secret whose payload_hash matches the body', async () => {
    const token = await signedJwt({ payload_hash: sha256(rawBody) });
    await expect(vonageAt(now).verifyWebhook(bearer(token))).resolves.toBe(true);
  });

  it('rejects a tampered body, a tampered token and another secret', async () => {
    const token = await signedJwt({ payload_hash: sha256(rawBody) });
    await expect(vonageAt(now).verifyWebhook(bearer(token, rawBody.replace('completed', 'busy')))).resolves.toBe(false);
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), api_key: 'other' }),
    ).toString('base64url');
    await expect(vonageAt(now).verifyWebhook(bearer(`${header}.${forged}.${signature}`))).resolves.toBe(false);
    const otherSecret = await signedJwt({ payload_hash: sha256(rawBody) }, 'another-secret-another-secret-12');
    await expect(vonageAt(now).verifyWebhook(bearer(otherSecret))).resolves.toBe(false);
  });

  it('rejects a stale or future token (iat more than five minutes away)', async () => {
    const token = await signedJwt({ payload_hash: sha256(rawBody) });
    await expect(vonageAt(new Date(now.getTime() + 300_000)).verifyWebhook(bearer(token))).resolves.toBe(true);
    await expect(vonageAt(new Date(now.getTime() + 301_000)).verifyWebhook(bearer(token))).resolves.toBe(false);
    await expect(vonageAt(new Date(now.getTime() - 301_000)).verifyWebhook(bearer(token))).resolves.toBe(false);
  });

  it('rejects an unsigned token, another algorithm, a missing header and a configuration without a secret', async () => {
    const claims = Buffer.from(JSON.stringify({ iat: now.getTime() / 1000 })).toString('base64url');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${claims}.`;
    await expect(vonageAt(now).verifyWebhook(bearer(none))).resolves.toBe(false);
    const hs512 = await signedJwt({ payload_hash: sha256(rawBody) }, secret.repeat(2), 'HS512');
    await expect(vonageAt(now).verifyWebhook(bearer(hs512))).resolves.toBe(false);
    await expect(vonageAt(now).verifyWebhook(webhook(rawBody))).resolves.toBe(false);
    const token = await signedJwt({ payload_hash: sha256(rawBody) });
    const withoutSecret = vonageProvider.create({ ...config, signature_secret: undefined }, { now: () => now });
    await expect(withoutSecret.verifyWebhook(bearer(token))).resolves.toBe(false);
  });

  describe('test vectors (provider-wire-formats.md §5.4)', () => {
    const pythonSdkToken =
      'eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJPbmxpbmUgSldUIEJ1aWxkZXIiLCJpYXQiOjE2OTc2MzQ2ODAsImV4cCI6MzMyNTQ1NDA4MjgsImF1ZCI6IiIsInN1YiI6IiJ9.88vJc3I2HhuqEDixHXVhc9R30tA6U_HQHZTC29y6CGM';
    const vonageClaimsVector = {
      body: '{"status":"completed","uuid":"00000000-0000-0000-0000-000000000001"}',
      payloadHash: '4e9f69f5056fb1a612aba4fd9ecf1154ca61e70c1cdd7df6048b6342568eaca1',
      token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3MDAwMDAwMDAsImp0aSI6ImM1YmE4ZjI0LTFhMTQtNGMxMC1iZmRmLTNmYmU4Y2U1MTFiNSIsImlzcyI6IlZvbmFnZSIsInBheWxvYWRfaGFzaCI6IjRlOWY2OWY1MDU2ZmIxYTYxMmFiYTRmZDllY2YxMTU0Y2E2MWU3MGMxY2RkN2RmNjA0OGI2MzQyNTY4ZWFjYTEiLCJhcGlfa2V5IjoiYWJjZDEyMzQiLCJhcHBsaWNhdGlvbl9pZCI6ImFhYWFhYWFhLWJiYmItY2NjYy1kZGRkLTAxMjM0NTY3ODlhYiJ9.1rCj_-ppKWuuTkRaaUZieQsGNJgCl7bpUu-JfNZDR6E',
    };

    it('vonage-python-sdk test_verify_jwt: valid for its secret, invalid for "asdf"', async () => {
      const issuedAt = new Date(1697634680 * 1000 + 60_000);
      const request = bearer(pythonSdkToken, '');
      await expect(vonageAt(issuedAt).verifyWebhook(request)).resolves.toBe(true);
      await expect(vonageAt(issuedAt, 'asdf').verifyWebhook(request)).resolves.toBe(false);
    });

    it('the Vonage-claims vector: its payload_hash is the body hash and the token verifies', async () => {
      expect(sha256(vonageClaimsVector.body)).toBe(vonageClaimsVector.payloadHash);
      const issuedAt = new Date(1700000000 * 1000 + 30_000);
      const request = bearer(vonageClaimsVector.token, vonageClaimsVector.body);
      await expect(vonageAt(issuedAt).verifyWebhook(request)).resolves.toBe(true);
      await expect(vonageAt(issuedAt).verifyWebhook({ ...request, rawBody: `${request.rawBody}\n` })).resolves.toBe(
        false,
      );
      await expect(vonageAt(new Date(1700000000 * 1000 + 301_000)).verifyWebhook(request)).resolves.toBe(false);
    });
  });
});
