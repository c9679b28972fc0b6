import type { ApiDeps } from '../context';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  CampaignSourceResponse,
  CampaignSourceUploadQuery,
  CsvBody,
  CsvMultipartBody,
} from '../schemas/campaign-sources';
import { csvUpload, MULTIPART_FILE_FIELD } from '../uploads/csv-body';
import type { ImportSlots } from '../uploads/import-slots';
import { importCampaignSource } from '../../domain/campaigns/sources/import-source';
import { spoolUpload } from '../uploads/spool';

const DEFAULT_FILE_NAME = 'contacts.csv';

export function createCampaignSourceRoutes({ dataSource, config }: ApiDeps, importSlot: ImportSlots): Route[] {
  const quotas = new Quotas(config);
  return [
    defineRoute(
      {
        method: 'post',
        path: '/campaign/sources',
        operationId: 'uploadCampaignSource',
        summary: 'Upload a contact list (CSV) for campaigns',
        description:
          'The CSV is the body (`Content-Type: text/csv`, name from `?file_name=`) or the `file` field of a ' +
          'multipart form. Headers are trimmed and lower-cased; `phone_number` is required and must be E.164 ' +
          "(with '+' and the country code); an optional `timezone` column holds IANA names; every other column " +
          "becomes the contact's `initial_context`. Rows are numbered from 1 after the header; invalid or " +
          'duplicate numbers, bad timezones, ragged rows and files without data rows are refused (400) naming ' +
          'up to 10 rows and the count, and nothing is stored. Over `CSV_MAX_BYTES`: 413. A body arriving slower ' +
          'than `CSV_MIN_UPLOAD_BYTES_PER_SECOND` over any 10 seconds: 408.',
        tags: ['campaigns'],
        security: ['ApiKey', 'SessionToken'],
        query: CampaignSourceUploadQuery,
        streamedBody: {
          description: `The CSV, as the body or as the '${MULTIPART_FILE_FIELD}' field of a form`,
          content: { 'text/csv': CsvBody, 'multipart/form-data': CsvMultipartBody },
        },
        responses: {
          201: { description: 'The stored contact list', schema: CampaignSourceResponse },
          400: errorResponse('The CSV was refused; the detail names the rows'),
          409: errorResponse(quotaBreach('campaign_sources')),
          408: errorResponse('The CSV arrived slower than CSV_MIN_UPLOAD_BYTES_PER_SECOND'),
          413: errorResponse('The CSV is larger than CSV_MAX_BYTES'),
          415: errorResponse('Neither text/csv nor multipart/form-data'),
        },
      },
      async (ctx, { query, auth }) => {
        const upload = await csvUpload(ctx.req, config.CSV_MAX_BYTES, config.CSV_MIN_UPLOAD_BYTES_PER_SECOND);
        const fileName = query.file_name ?? upload.fileName?.slice(0, 255) ?? DEFAULT_FILE_NAME;
        // The whole file is on disk before a connection is taken: a slow client holds no database resource.
        const spooled = await spoolUpload(upload.stream);
        const source = await importSlot(() =>
          importCampaignSource(dataSource, auth.organizationId, spooled.open(), fileName, quotas),
        ).finally(() => spooled.remove());
        ctx.state.log.info(
          { event: 'campaign_source_uploaded', source_id: source.source_id, total_rows: source.total_rows },
          'contact list uploaded',
        );
        ctx.status = 201;
        ctx.body = source;
      },
    ),
  ];
}
