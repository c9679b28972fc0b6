import { z } from '../zod';
import { DNC_MAX_OFFSET, DNC_REASON_MAX, DNC_SEARCH_MAX } from '../../domain/compliance/do-not-call';
import type {
  DoNotCallEntry as DomainEntry,
  DoNotCallImportResult as DomainImportResult,
  DoNotCallRequest as DomainRequest,
} from '../../domain/compliance/types';
import { DateTimeString, EXAMPLE_TIME, IdParam, PageQuery, text, type Documents, type SameShape } from './common';
import { CanonicalPhoneNumber, PhoneNumberInput } from './phone-number';

export const DoNotCallRequest = z
  .object({
    phone_number: PhoneNumberInput,
    reason: text(DNC_REASON_MAX)
      .nullish()
      .openapi({ description: 'Why the number is listed (for people reading the list).' }),
  })
  .openapi('DoNotCallRequest', { example: { phone_number: '+14155550100', reason: 'Asked by email on 2 March' } });
export type DoNotCallRequest = z.output<typeof DoNotCallRequest>;

export const DoNotCallEntry = z
  .object({
    id: z.number().int(),
    phone_number: CanonicalPhoneNumber,
    reason: z.string().nullable(),
    source: z.enum(['api', 'import', 'opt_out']).openapi({
      description:
        '`api`: added with POST; `import`: from a CSV import; `opt_out`: the callee asked during a call (see `run_id`).',
    }),
    run_id: z.number().int().nullable().openapi({ description: 'The run whose callee opted out (`opt_out` only).' }),
    caller_id_verified: z
      .boolean()
      .nullable()
      .openapi({
        description:
          '`opt_out` only: `true` when the number is surely the person who asked (a callee we dialed, or an inbound ' +
          "caller whose number the provider verified: STIR/SHAKEN full attestation); `false` for an inbound caller's " +
          'number the provider did not verify, which may be spoofed. `null` for `api` and `import` entries.',
      }),
    created_at: DateTimeString,
  })
  .openapi('DoNotCallEntry', {
    example: {
      id: 7,
      phone_number: '+14155550100',
      reason: 'Asked by email on 2 March',
      source: 'api',
      run_id: null,
      caller_id_verified: null,
      created_at: EXAMPLE_TIME,
    },
  });
export type DoNotCallEntry = z.output<typeof DoNotCallEntry>;

export const DoNotCallListQuery = PageQuery.extend({
  search: text(DNC_SEARCH_MAX)
    .optional()
    .openapi({
      description:
        'Digits (with or without `+` and separators): entries whose number starts with them, country code first. ' +
        'Any other text: entries whose reason starts with it, case-insensitive.',
      example: '+1 415',
    }),
}).refine(({ page, limit }) => (page - 1) * limit < DNC_MAX_OFFSET, {
  error: `pages reach the first ${DNC_MAX_OFFSET} entries ((page - 1) * limit must be below ${DNC_MAX_OFFSET}); narrow the search to reach further`,
  path: ['page'],
});

export const DoNotCallList = z
  .object({
    numbers: z.array(DoNotCallEntry),
    total_count: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    total_pages: z.number().int(),
  })
  .openapi('DoNotCallList', {
    example: {
      numbers: [
        {
          id: 9,
          phone_number: '+14155550123',
          reason: 'Asked not to be called during the conversation',
          source: 'opt_out',
          run_id: 501,
          caller_id_verified: false,
          created_at: EXAMPLE_TIME,
        },
      ],
      total_count: 1,
      page: 1,
      limit: 50,
      total_pages: 1,
    },
  });

export const DoNotCallParams = z.object({ entry_id: IdParam.openapi({ example: 7 }) });

/** The import's CSV, sent as the whole body. */
export const DoNotCallCsvBody = z.string().openapi({
  description: 'UTF-8 CSV: a header row with `phone_number` (and optionally `reason`), then one row per number.',
  example: 'phone_number,reason\n+14155550100,Asked by email\n+44 20 7946 0958,\n',
});

export const DoNotCallImportResult = z
  .object({
    total_rows: z.number().int().openapi({ description: 'Data rows read (the header not counted).' }),
    imported: z.number().int().openapi({ description: 'Numbers added to the list.' }),
    already_listed: z
      .number()
      .int()
      .openapi({ description: 'Numbers that were on the list already (or repeated in the file): left as they were.' }),
  })
  .openapi('DoNotCallImportResult', { example: { total_rows: 2, imported: 2, already_listed: 0 } });
export type DoNotCallImportResult = z.output<typeof DoNotCallImportResult>;

// The shapes the domain takes and answers (domain/compliance/types.ts), as documented here.
export type DoNotCallRequestDocumented = Documents<SameShape<DoNotCallRequest, DomainRequest>>;
export type DoNotCallEntryDocumented = Documents<SameShape<DoNotCallEntry, DomainEntry>>;
export type DoNotCallImportResultDocumented = Documents<SameShape<DoNotCallImportResult, DomainImportResult>>;
