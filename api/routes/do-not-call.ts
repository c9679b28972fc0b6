import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import { SuccessResponse } from '../schemas/common';
import {
  DoNotCallCsvBody,
  DoNotCallEntry,
  DoNotCallImportResult,
  DoNotCallList,
  DoNotCallListQuery,
  DoNotCallParams,
  DoNotCallRequest,
} from '../schemas/do-not-call';
import { CsvMultipartBody } from '../schemas/campaign-sources';
import { csvUpload, MULTIPART_FILE_FIELD } from '../uploads/csv-body';
import type { ImportSlots } from '../uploads/import-slots';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { spoolUpload } from '../uploads/spool';
import { addDoNotCall, DNC_MAX_OFFSET, listDoNotCall, removeDoNotCall } from '../../domain/compliance/do-not-call';
import { importDoNotCall } from '../../domain/compliance/do-not-call-import';

const BASE = '/organizations/do-not-call';
const tags = ['do-not-call'];
const security = ['ApiKey', 'SessionToken'] as const;

export function createDoNotCallRoutes({ dataSource, config }: ApiDeps, importSlot: ImportSlots): Route[] {
  const quotas = new Quotas(config);
  return [
    defineRoute(
      {
        method: 'get',
        path: BASE,
        operationId: 'listDoNotCall',
        summary: "The organization's do-not-call list, newest first",
        description:
          'Paged; `search` narrows it to numbers starting with the digits given (country code first: `+1 415` ' +
          'finds `+1415…`) or, for any other text, to reasons starting with it (case-insensitive). Pages reach ' +
          `the first ${DNC_MAX_OFFSET.toLocaleString('en-US')} entries of the list or of a search: a page starting ` +
          'past them answers 422; narrow the search to reach further.',
        tags,
        security,
        query: DoNotCallListQuery,
        responses: { 200: { description: 'One page of the list', schema: DoNotCallList } },
      },
      async (ctx, { query, auth }) => {
        ctx.body = await listDoNotCall(dataSource, auth.organizationId, query);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: BASE,
        operationId: 'addDoNotCall',
        summary: 'Put a number on the do-not-call list',
        description:
          'The number is stored in its canonical E.164 form, the one every call and contact is compared in. ' +
          'From then on no campaign dials it (its contacts are skipped and counted in `dnc_skipped`) and a call ' +
          'to it, in whatever form, answers 422. A number listed already keeps its entry: 200.',
        tags,
        security,
        body: DoNotCallRequest,
        responses: {
          201: { description: 'Listed', schema: DoNotCallEntry },
          200: { description: 'Listed already: the existing entry', schema: DoNotCallEntry },
          409: errorResponse(quotaBreach('do_not_call_numbers')),
        },
      },
      async (ctx, { body, auth }) => {
        const { entry, created } = await addDoNotCall(dataSource, quotas, auth.organizationId, body);
        ctx.status = created ? 201 : 200;
        ctx.body = entry;
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${BASE}/import`,
        operationId: 'importDoNotCall',
        summary: 'Put the numbers of a CSV on the do-not-call list',
        description:
          'The CSV is the body (`Content-Type: text/csv`) or the `file` field of a multipart form, with a ' +
          '`phone_number` column and an optional `reason` column (other columns are ignored). Rows are numbered from ' +
          '1 after the header. Invalid numbers, reasons over 255 characters, malformed files and files of more than ' +
          '`DNC_IMPORT_MAX_ROWS` rows are refused (400, naming up to 10 rows and the count) and nothing is stored. ' +
          'Numbers are stored in their canonical E.164 form. Over `CSV_MAX_BYTES`: 413. Imports share ' +
          '`CSV_MAX_CONCURRENT_IMPORTS` slots with contact-list uploads: past it, an import waits its turn.',
        tags,
        security,
        streamedBody: {
          description: `The CSV, as the body or as the '${MULTIPART_FILE_FIELD}' field of a form`,
          content: { 'text/csv': DoNotCallCsvBody, 'multipart/form-data': CsvMultipartBody },
        },
        responses: {
          200: { description: 'The numbers were listed', schema: DoNotCallImportResult },
          400: errorResponse('The CSV was refused; the detail names the rows'),
          409: errorResponse(quotaBreach('do_not_call_numbers')),
          408: errorResponse('The CSV arrived slower than CSV_MIN_UPLOAD_BYTES_PER_SECOND'),
          413: errorResponse('The CSV is larger than CSV_MAX_BYTES'),
          415: errorResponse('Neither text/csv nor multipart/form-data'),
        },
      },
      async (ctx, { auth }) => {
        const upload = await csvUpload(ctx.req, config.CSV_MAX_BYTES, config.CSV_MIN_UPLOAD_BYTES_PER_SECOND);
        // On disk before a connection is taken: a slow client holds no database resource.
        const spooled = await spoolUpload(upload.stream);
        const result = await importSlot(() =>
          importDoNotCall(dataSource, quotas, auth.organizationId, spooled.open(), config.DNC_IMPORT_MAX_ROWS),
        ).finally(() => spooled.remove());
        ctx.state.log.info({ event: 'do_not_call_imported', ...result }, 'do-not-call list imported');
        ctx.body = result;
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: `${BASE}/{entry_id}`,
        operationId: 'removeDoNotCall',
        summary: 'Take a number off the do-not-call list',
        description: "404 when the entry is unknown or another organization's.",
        tags,
        security,
        params: DoNotCallParams,
        responses: {
          200: { description: 'Removed', schema: SuccessResponse },
          404: errorResponse('Do-not-call entry not found'),
        },
      },
      async (ctx, { params, auth }) => {
        await removeDoNotCall(dataSource, auth.organizationId, params.entry_id);
        ctx.body = { success: true, message: 'Number removed from the do-not-call list' };
      },
    ),
  ];
}
