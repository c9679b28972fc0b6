import { ProviderError, type CallStatus, type WebhookRequest } from '../../telephony/provider';
import { cloudonixProvider } from '../../telephony/providers/cloudonix';

const apiKey = 'XI-domain-api-key-value';
const cloudonix = cloudonixProvider.create({ bearer_token: apiKey, domain_id: 'acme' });

function webhook(rawBody: string, headers: Record<string, string> = {}): WebhookRequest {
  return { method: 'POST', url: 'https://sb.example.com/api/v1/telephony/cloudonix/status/42', headers, rawBody };
}

describe('parseStatusWebhook (CDR)', () => {
  const token = '16a7294c989b11e7b3d32b9edb8660c7';

  it.each<[string, number, CallStatus, number]>([
    ['ANSWER', 42, 'completed', 42],
    ['BUSY', 0, 'busy', 0],
    ['NOANSWER', 0, 'no-answer', 0],
    ['CANCEL', 0, 'canceled', 0],
    ['FAILED', 0, 'failed', 0],
    ['CONGESTION', 0, 'failed', 0],
  ])('%s (billsec %i) → %s', (disposition, billsec, status, durationSeconds) => {
    const raw = {
      disposition,
      billsec,
      duration: billsec + 7,
      from: '+15550001111',
      to: '+15551234567',
      session: { token, domain: 'acme.cloudonix.net' },
    };
    expect(cloudonix.parseStatusWebhook(webhook(JSON.stringify(raw)))).toEqual({
      status,
      providerCallId: token,
      durationSeconds,
      raw,
    });
  });

  it('reads billsec sent as text', () => {
    const rawBody = JSON.stringify({ disposition: 'ANSWER', billsec: '17', session: { token } });
    expect(cloudonix.parseStatusWebhook(webhook(rawBody))).toMatchObject({ durationSeconds: 17 });
  });

  it.each([
    ['an unknown disposition', JSON.stringify({ disposition: 'TRANSFERRED', session: { token } })],
    ['a session update', JSON.stringify({ token, domain: 'acme.cloudonix.net', callStartTime: 1700000000000 })],
    ['a body that is not JSON', 'disposition=ANSWER'],
  ])('refuses %s', (_what, rawBody) => {
    expect(() => cloudonix.parseStatusWebhook(webhook(rawBody))).toThrow(ProviderError);
  });
});

describe('verifyWebhook (no official test vector exists)', () => {
  it('accepts the domain API key in x-cx-apikey or as a Bearer token', () => {
    expect(cloudonix.verifyWebhook(webhook('{}', { 'x-cx-apikey': apiKey }))).toBe(true);
    expect(cloudonix.verifyWebhook(webhook('{}', { authorization: `Bearer ${apiKey}` }))).toBe(true);
  });

  it('rejects another key, a tampered key, a prefix of the key and no key', () => {
    expect(cloudonix.verifyWebhook(webhook('{}', { 'x-cx-apikey': 'XI-another-key' }))).toBe(false);
    expect(cloudonix.verifyWebhook(webhook('{}', { 'x-cx-apikey': `${apiKey.slice(0, -1)}X` }))).toBe(false);
    expect(cloudonix.verifyWebhook(webhook('{}', { 'x-cx-apikey': apiKey.slice(0, 8) }))).toBe(false);
    expect(cloudonix.verifyWebhook(webhook('{}', { authorization: `Basic ${apiKey}` }))).toBe(false);
    expect(cloudonix.verifyWebhook(webhook('{}'))).toBe(false);
  });
});
