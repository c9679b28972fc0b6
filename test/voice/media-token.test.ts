import { randomBytes } from 'node:crypto';
import { Secrets } from '../../telephony/secrets';
import {
  MEDIA_TOKEN_TTL_SECONDS,
  mediaStreamUrl,
  mediaTokenKey,
  signMediaToken,
  verifyMediaToken,
} from '../../voice/media-token';

const key = mediaTokenKey(new Secrets(randomBytes(32)));
const claims = { provider: 'twilio', runId: 42 };
const now = Date.UTC(2026, 0, 1);

describe('media token', () => {
  it('is valid for its provider and run until it expires, then expired', () => {
    const token = signMediaToken(key, claims, now);
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyMediaToken(key, token, claims, now)).toBe('valid');
    expect(verifyMediaToken(key, token, claims, now + (MEDIA_TOKEN_TTL_SECONDS - 1) * 1000)).toBe('valid');
    expect(verifyMediaToken(key, token, claims, now + MEDIA_TOKEN_TTL_SECONDS * 1000)).toBe('expired');
  });

  it('is invalid for another run, another provider, or under another key', () => {
    const token = signMediaToken(key, claims, now);
    expect(verifyMediaToken(key, token, { provider: 'twilio', runId: 43 }, now)).toBe('invalid');
    expect(verifyMediaToken(key, token, { provider: 'plivo', runId: 42 }, now)).toBe('invalid');
    expect(verifyMediaToken(randomBytes(32), token, claims, now)).toBe('invalid');
  });

  it('is invalid when tampered with: a pushed-back expiry, a changed MAC, or garbage', () => {
    const token = signMediaToken(key, claims, now - 3600_000);
    const [expires, mac] = token.split('.') as [string, string];
    expect(verifyMediaToken(key, token, claims, now)).toBe('expired');
    expect(verifyMediaToken(key, `${Number(expires) + 7200}.${mac}`, claims, now)).toBe('invalid');
    const flipped = (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1);
    expect(verifyMediaToken(key, `${expires}.${flipped}`, claims, now - 3600_000)).toBe('invalid');
    for (const junk of ['', '.', 'abc', `${expires}.`, `${expires}.${mac}x`, `-1.${mac}`]) {
      expect(verifyMediaToken(key, junk, claims, now)).toBe('invalid');
    }
  });

  it('rides in the media URL (a path segment for Twilio, which takes no query), keyed for its own purpose', () => {
    const secrets = new Secrets(randomBytes(32));
    const twilio = new URL(mediaStreamUrl('https://sb.example.com/', mediaTokenKey(secrets), claims, now));
    const [, token] = /^\/api\/v1\/telephony\/twilio\/media\/42\/([^/]+)$/.exec(twilio.pathname) ?? [];
    expect(twilio.search).toBe('');
    expect(verifyMediaToken(secrets.deriveKey('media-token'), token ?? '', claims, now)).toBe('valid');

    const telnyxClaims = { provider: 'telnyx', runId: 42 };
    const telnyx = new URL(mediaStreamUrl('https://sb.example.com', mediaTokenKey(secrets), telnyxClaims, now));
    expect(`${telnyx.origin}${telnyx.pathname}`).toBe('wss://sb.example.com/api/v1/telephony/telnyx/media/42');
    const queryToken = telnyx.searchParams.get('token') ?? '';
    expect(verifyMediaToken(mediaTokenKey(secrets), queryToken, telnyxClaims, now)).toBe('valid');
    expect(mediaTokenKey(secrets)).not.toEqual(secrets.deriveKey('simulator-webhooks'));
  });
});
