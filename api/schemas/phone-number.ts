import { z } from '../zod';
import { e164 } from '../../domain/campaigns/sources/phone-number';
import { text } from './common';

/**
 * A phone number as a person writes it, taken in its canonical form: E.164 as libphonenumber-js
 * formats it with its complete numbering plans, the rule contact lists follow. `+44 (0)20 7946 0958`
 * and `+4402079460958` both become `+442079460958`, so the do-not-call list, the frequency caps and
 * the runs all compare one form.
 */
export const PhoneNumberInput = text(64)
  .refine((value) => e164(value) !== null, {
    error: "must be a valid phone number with '+' and the country code, for example +14155550100",
    abort: true,
  })
  .overwrite((value) => e164(value) ?? value)
  .openapi({
    description:
      "A phone number with '+' and the country code, valid by libphonenumber's numbering plans. It is taken in " +
      'its canonical E.164 form (spaces, dots, dashes and parentheses dropped, a national prefix after the ' +
      'country code removed: `+44 (0)20 7946 0958` is `+442079460958`), and answered in that form.',
    example: '+1 (415) 555-0100',
  });

/** A number the API answers: always the canonical E.164 form it was stored in. */
export const CanonicalPhoneNumber = z
  .string()
  .openapi({ description: 'Canonical E.164 (see the request field).', example: '+14155550100' });
