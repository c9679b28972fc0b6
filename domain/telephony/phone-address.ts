import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { AddressType } from '../../entities/phone-number.entity';
import { ValidationError } from '../errors';

export interface NormalizedAddress {
  addressNormalized: string;
  addressType: AddressType;
}

const SIP_URI = /^sips?:[^\s@]+(@[^\s@]+)?$/i;
const EXTENSION = /^[A-Za-z0-9._-]{1,64}$/;
/** Separators people write inside phone numbers. */
const SEPARATORS = /[\s().-]/g;

/**
 * Classifies and normalizes a phone number address: `sip:`/`sips:` URIs are `sip_uri` (scheme and
 * host lower-cased); numbers with `+`, or national numbers with a country code, are `pstn` in
 * E.164; short digit strings and names are `sip_extension`. A bare 8–15 digit number without `+`
 * or country code is ambiguous and refused.
 */
export function normalizeAddress(address: string, countryCode?: string | null): NormalizedAddress {
  const trimmed = address.trim();
  if (/^sips?:/i.test(trimmed)) {
    if (!SIP_URI.test(trimmed)) invalid('is not a valid SIP URI (sip:user@host)');
    const [user, host] = trimmed.split('@');
    return {
      addressNormalized:
        host === undefined ? trimmed.toLowerCase() : `${(user ?? '').toLowerCase()}@${host.toLowerCase()}`,
      addressType: 'sip_uri',
    };
  }
  const compact = trimmed.replace(SEPARATORS, '');
  if (/^\+\d+$/.test(compact) || (/^\d+$/.test(compact) && countryCode && compact.length >= 5)) {
    const parsed = parsePhoneNumberFromString(compact, (countryCode ?? undefined) as CountryCode | undefined);
    if (!parsed?.isValid()) invalid('is not a valid phone number; write it in E.164, for example +14155550100');
    return { addressNormalized: parsed.number, addressType: 'pstn' };
  }
  if (/^\d{8,15}$/.test(compact)) {
    invalid('looks like a phone number without a country code: start it with + or give country_code');
  }
  if (!EXTENSION.test(trimmed)) {
    invalid('must be an E.164 number, a sip: URI or a SIP extension (letters, digits, . _ -)');
  }
  return { addressNormalized: trimmed, addressType: 'sip_extension' };
}

function invalid(message: string): never {
  throw new ValidationError([{ loc: ['body', 'address'], msg: `address ${message}`, type: 'value_error' }]);
}
