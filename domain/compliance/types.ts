/**
 * The do-not-call list as the domain takes and answers it: the API's schemas
 * (api/schemas/do-not-call.ts) document these shapes, and the API's build checks that they agree.
 */

export interface DoNotCallRequest {
  /** E.164, normalized by the API's schema. */
  phone_number: string;
  reason?: string | null | undefined;
}

export interface DoNotCallEntry {
  id: number;
  phone_number: string;
  reason: string | null;
  source: 'api' | 'import' | 'opt_out';
  run_id: number | null;
  /** Opt-outs: whether the provider vouched for the number (always, for a callee we dialed); null otherwise. */
  caller_id_verified: boolean | null;
  created_at: string;
}

export interface DoNotCallImportResult {
  total_rows: number;
  imported: number;
  already_listed: number;
}
