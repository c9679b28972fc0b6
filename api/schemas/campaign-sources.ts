import { z } from '../zod';
import { name } from './common';

export const CampaignSourceUploadQuery = z.object({
  file_name: name(255)
    .optional()
    .openapi({ description: 'Name to keep for the list; multipart uploads default to the part’s filename.' }),
});

/** The CSV itself, sent as the whole body. */
export const CsvBody = z.string().openapi({
  description: 'UTF-8 CSV: a header row (with `phone_number`), then one row per contact.',
  example: 'phone_number,first_name,timezone\n+14155550100,Ada,America/Los_Angeles\n',
});

/** The CSV as the `file` field of a form. */
export const CsvMultipartBody = z
  .object({ file: z.string().openapi({ format: 'binary', description: 'The CSV file' }) })
  .openapi('CsvMultipartBody', { example: { file: 'phone_number,first_name\n+14155550100,Ada\n' } });

export const CampaignSourceResponse = z
  .object({
    source_id: z.string().openapi({ example: 'src_3f0c9a1e-6c2b-4f57-9a59-2f7f2f0b7c11' }),
    file_name: z.string(),
    total_rows: z.number().int().openapi({ description: 'Data rows stored (the header not counted)' }),
    columns: z.array(z.string()).openapi({ description: 'Normalized headers (trimmed, lower-cased), in file order' }),
  })
  .openapi('CampaignSourceResponse', {
    example: {
      source_id: 'src_3f0c9a1e-6c2b-4f57-9a59-2f7f2f0b7c11',
      file_name: 'contacts.csv',
      total_rows: 1,
      columns: ['phone_number', 'first_name', 'timezone'],
    },
  });
