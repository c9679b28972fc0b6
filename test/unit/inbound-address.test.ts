import { inboundAddress } from '../../domain/calls/inbound';
import { e164 } from '../../domain/campaigns/sources/phone-number';

describe('the numbers of an inbound call', () => {
  it.each([
    ['E.164', '+442079460958', '+442079460958'],
    ['a national prefix after the country code', '+4402079460958', '+442079460958'],
    ['digits without + (Plivo, Vobiz, Vonage)', '442079460958', '+442079460958'],
    ['formatted', '+1 (415) 555-0100', '+14155550100'],
  ])('takes %s in the canonical form the do-not-call list holds', (_case, raw, canonical) => {
    expect(inboundAddress(raw)).toBe(canonical);
    expect(e164(raw.startsWith('+') ? raw : `+${raw}`)).toBe(canonical);
  });

  it.each([
    ['withheld', 'anonymous'],
    ['a SIP URI, lower-cased', 'sip:Alice@Example.com'],
  ])('keeps a caller ID that is no number: %s', (_case, raw) => {
    expect(inboundAddress(raw)).toBe(raw.startsWith('sip:') ? raw.toLowerCase() : raw);
  });
});
