/** The answer to a call request (documented by api/schemas/calls.ts, checked to agree). */
export interface CallInitiated {
  status: 'initiated';
  workflow_run_id: number;
  workflow_run_name: string;
}
