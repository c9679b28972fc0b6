import { z } from '../zod';
import type { PersonErasure as DomainErasure } from '../../domain/lifecycle/person-erasure';
import type { RetentionSetting as DomainRetention } from '../../domain/lifecycle/retention';
import { text, type Documents, type SameShape } from './common';

export const CampaignSourceParams = z.object({
  source_id: text(255).openapi({ example: 'src_3f0c9a1e-6c2b-4f57-9a59-2f7f2f0b7c11' }),
});

export const ErasureRequest = z
  .object({
    phone_number: text(64)
      .min(1)
      .openapi({
        description:
          'The number whose data is erased. Matched as given and in its E.164 form (libphonenumber-js), so ' +
          "'+1 (415) 555-0100' also finds '+14155550100'.",
      }),
  })
  .openapi('ErasureRequest', { example: { phone_number: '+1 (415) 555-0100' } });
export type ErasureRequest = z.output<typeof ErasureRequest>;

export const ErasureResult = z
  .object({
    matched_numbers: z.array(z.string()).openapi({ description: 'The forms of the number that were matched.' }),
    contacts_deleted: z.number().int().openapi({ description: 'Contacts removed from every contact list.' }),
    runs_erased: z
      .number()
      .int()
      .openapi({ description: 'Runs whose numbers, transcript, contexts and analysis were erased.' }),
    recordings_deleted: z.number().int(),
    runs_in_progress: z.number().int().openapi({
      description: 'Runs of the number still on the line, left whole: send the request again once they have ended.',
    }),
    on_do_not_call_list: z.boolean().openapi({
      description: 'The number is on the do-not-call list, and stays there so it is never called again.',
    }),
  })
  .openapi('ErasureResult', {
    example: {
      matched_numbers: ['+1 (415) 555-0100', '+14155550100'],
      contacts_deleted: 3,
      runs_erased: 2,
      recordings_deleted: 2,
      runs_in_progress: 0,
      on_do_not_call_list: true,
    },
  });
export type ErasureResult = z.output<typeof ErasureResult>;

export const RetentionSetting = z
  .object({
    retention_days: z
      .number()
      .int()
      .min(1)
      .max(36500)
      .nullable()
      .openapi({
        description:
          'Runs older than this many days lose their recording, transcript, numbers, contexts and analysis ' +
          '(their usage totals stay). Null: kept until deleted.',
      }),
  })
  .openapi('RetentionSetting', { example: { retention_days: 90 } });
export type RetentionSetting = z.output<typeof RetentionSetting>;

export type ErasureResultDocumented = Documents<SameShape<ErasureResult, DomainErasure>>;
export type RetentionSettingDocumented = Documents<SameShape<RetentionSetting, DomainRetention>>;
