/** Inputs, outputs, signals and queries shared by the API, the worker and the tests. */

import { defineSignal } from '@temporalio/workflow';
import type { CallStatus, TERMINAL_STATUS_LIST } from '../telephony/provider';

/** How a call ends: `gathered_context.call_status`. */
export type TerminalCallStatus = (typeof TERMINAL_STATUS_LIST)[number];

export interface HealthCheckResult {
  /** The worker that ran the activity. */
  workerIdentity: string;
  /** PostgreSQL's clock, read by the activity: proof that the worker reached the database. */
  databaseTime: string;
  databaseName: string;
}

/** Workflow ids are business keys; health checks are one-off, so they carry a unique suffix. */
export const healthCheckWorkflowId = (suffix: string): string => `health-check-${suffix}`;

/** The call workflow of an API call; campaign calls use their child id (stored in `runs.temporal_workflow_id`). */
export const callWorkflowId = (runId: number): string => `call-${runId}`;

export interface CallWorkflowInput {
  runId: number;
  /** Which dial of this call it is (1 for API calls; a campaign's retries count up): part of the provider idempotency key. */
  attempt: number;
  /** Seconds a call may ring before it is hung up as `no-answer` (default 60). */
  ringTimeoutSeconds?: number;
  /** Seconds between status lookups while no webhook arrives (default 15). */
  statusPollSeconds?: number;
  /** `workflow_configurations.max_call_duration` of the run's agent version. */
  maxDurationSeconds: number;
}

/** A normalized status event, as the webhook route (or a status lookup) delivers it to the workflow. */
export interface CallStatusUpdate {
  status: CallStatus;
  providerCallId?: string;
  durationSeconds?: number;
}

export interface CallOutcome {
  runId: number;
  /** `gathered_context.call_status`: exactly one terminal status. */
  callStatus: TerminalCallStatus;
  durationSeconds: number;
  /** `gathered_context.mapped_call_disposition`. */
  disposition: string;
}

/** The provider reported a call status (the webhook route sends it; repeats and late ones are ignored). */
export const callStatusSignal = defineSignal<[CallStatusUpdate]>('callStatus');

/** `workflow_configurations.max_call_duration` when the agent sets none. */
export const DEFAULT_MAX_CALL_DURATION_SECONDS = 300;
