import { randomBytes } from 'node:crypto';
import { callUrls } from '../../domain/calls/call-settings';
import { answerUrls } from '../../telephony/inbound';
import { Secrets } from '../../telephony/secrets';
import { mediaTokenKey, verifyMediaToken } from '../../voice/media-token';

const secrets = new Secrets(randomBytes(32));
const settings = { publicBaseUrl: 'https://sb.example.com', pricePerMinuteUsd: 0, pricePer1kTokensUsd: 0 };

describe('media URLs handed to providers', () => {
  it.each([
    ['outbound (callUrls)', callUrls(settings, 'telnyx', 77, secrets).mediaStreamUrl],
    ['inbound (answerUrls)', answerUrls('https://sb.example.com/', 'telnyx', 77, secrets).mediaStreamUrl],
  ])('%s: the media endpoint of the run, with a token for that provider and run', (_name, mediaStreamUrl) => {
    const url = new URL(mediaStreamUrl);
    expect(`${url.origin}${url.pathname}`).toBe('wss://sb.example.com/api/v1/telephony/telnyx/media/77');
    const token = url.searchParams.get('token') ?? '';
    expect(verifyMediaToken(mediaTokenKey(secrets), token, { provider: 'telnyx', runId: 77 })).toBe('valid');
    expect(verifyMediaToken(mediaTokenKey(secrets), token, { provider: 'twilio', runId: 77 })).toBe('invalid');
  });

  it('keeps the status and answer URLs as they were', () => {
    expect(callUrls(settings, 'twilio', 5, secrets)).toMatchObject({
      statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/twilio/status/5',
      answerUrl: 'https://sb.example.com/api/v1/telephony/twilio/answer/5',
    });
  });
});
