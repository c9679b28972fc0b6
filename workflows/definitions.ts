/** Inputs, outputs, signals and queries shared by the API, the worker and the tests. */

import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ConversationResult, ConversationResume } from '../agent-runtime/contract';
import type { CallStatus, TERMINAL_STATUS_LIST, TransferStatus } from '../telephony/provider';
import type { RunTransfer } from '../domain/runs/types';
import type { CampaignSettings, CampaignState, VoicemailAction } from '../domain/campaigns/settings';

// The campaign's vocabulary (states, settings) is the domain's; workflow code reads it from here too.
export type {
  CampaignFallbackRoute,
  CampaignSettings,
  CampaignState,
  CircuitBreakerConfig,
  RetryConfig,
  ScheduleConfig,
  ScheduleSlot,
  VoicemailAction,
} from '../domain/campaigns/settings';

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

/** A rerun of a run's analysis; the same request key always names the same rerun. */
export const analysisWorkflowId = (runId: number, analysisId: string): string => `run-analysis-${runId}-${analysisId}`;

/** The call workflow of an API call; campaign calls use their child id (stored in `runs.temporal_workflow_id`). */
export const callWorkflowId = (runId: number): string => `call-${runId}`;

export interface CallWorkflowInput {
  runId: number;
  /**
   * Set for a campaign's call. The campaign learns the outcome from the call's completion; the call
   * signals it (by workflow id, so it reaches the campaign's latest run) only once asked with
   * `campaignReportRequestedSignal`, which a campaign sends before it continues as new.
   */
  campaign?: CampaignCallLink;
  /** Which dial of this call it is (1 for API calls; a campaign's retries count up): part of the provider idempotency key. */
  attempt: number;
  /** Seconds a call may ring before it is hung up as `no-answer` (default 60). */
  ringTimeoutSeconds?: number;
  /** Seconds between status lookups while the call rings and no webhook arrives (default 15). */
  statusPollSeconds?: number;
  /**
   * Once the call is answered, its status lookups back off: the interval doubles from
   * `statusPollSeconds` up to this many seconds (default 120; never below `statusPollSeconds`).
   * The hang-up at `maxDurationSeconds` stays on time: no wait runs past it.
   */
  answeredStatusPollMaxSeconds?: number;
  /** `workflow_configurations.max_call_duration` of the run's agent version. */
  maxDurationSeconds: number;
  /** `inbound`: the provider rang us and the webhook's reply answers the call, so nothing is dialed (default `outbound`). */
  direction?: 'outbound' | 'inbound';
  /** The provider's id of an inbound call (required with `direction: 'inbound'`). */
  providerCallId?: string;
  /**
   * How the call converses once answered. `live`: the call carries audio, and the conversation
   * runs on the media stream (in the API process that holds it), which reports it with
   * `conversationEndedSignal`. `simulated`: the simulator's text-only callee, in a local activity
   * of the worker that runs the workflow.
   */
  conversation: 'live' | 'simulated';
  /** The telephony provider it dials through (`twilio`, `simulator`, ...): shown beside the dial in the Temporal UI. */
  provider?: string;
  /**
   * What a call a machine answered does (default `retry_later`: hang up, outcome `voicemail`);
   * `leave_message` speaks the agent's `voicemail_message` first.
   */
  voicemailAction?: VoicemailAction;
}

/** A normalized status event, as the webhook route (or a status lookup) delivers it to the workflow. */
export interface CallStatusUpdate {
  status: CallStatus;
  providerCallId?: string;
  durationSeconds?: number;
  /** Answering-machine detection on an `answered` event (`StatusEvent.answeredBy`). */
  answeredBy?: 'human' | 'machine';
}

export interface CallOutcome {
  runId: number;
  /** `gathered_context.call_status`: exactly one terminal status. */
  callStatus: TerminalCallStatus;
  durationSeconds: number;
  /** `gathered_context.mapped_call_disposition`. */
  disposition: string;
}

/** The disposition of a call a machine answered and the agent left its voicemail message on. */
export const VOICEMAIL_LEFT = 'voicemail_left';

/**
 * `mapped_call_disposition`: the conversation's disposition for a completed call, `voicemail_left`
 * for a voicemail message left, else its status.
 */
export const callDisposition = (
  callStatus: TerminalCallStatus,
  conversation: ConversationResult | null,
  voicemailLeft = false,
): string => {
  if (voicemailLeft && callStatus === 'voicemail') return VOICEMAIL_LEFT;
  return conversation && callStatus === 'completed' ? conversation.disposition : callStatus;
};

/** The voicemail message the agent speaks after the beep, rendered for the call. */
export interface VoicemailMessage {
  text: string;
  /** How long speaking it takes. */
  seconds: number;
}

/** A transfer event, as the transfer webhook route (or a status lookup) delivers it to the workflow. */
export interface TransferStatusUpdate {
  status: TransferStatus;
  /** The transfer it is about; events of other transfers are ignored. */
  transferId?: string;
}

export type { RunTransfer };

/** The provider reported a transfer's status (the transfer webhook route sends it). */
export const transferStatusSignal = defineSignal<[TransferStatusUpdate]>('transferStatus');

/** The provider reported a call status (the webhook route sends it; repeats and late ones are ignored). */
export const callStatusSignal = defineSignal<[CallStatusUpdate]>('callStatus');

/** A live call's conversation began on its media stream (the voice pipeline sends it). */
export const conversationStartedSignal = defineSignal('conversationStarted');

/** A live call's conversation ended (the voice pipeline sends it; the first one counts). */
export const conversationEndedSignal = defineSignal<[ConversationResult]>('conversationEnded');

/** Whether a live conversation that stopped for a transfer carries on, and from where. */
export interface LiveResume {
  /** The call ended or the person took the caller: nothing carries on. */
  over: boolean;
  /** The latest conversation to carry on (a transfer did not connect), if any. */
  resume: ConversationResume | null;
  /** That conversation has not begun again yet. */
  awaiting: boolean;
}

/**
 * Asked by the API process holding a live call's stream once its conversation stopped for a
 * transfer: whether to carry the conversation on (the transfer did not connect), wait, or stop.
 */
export const liveResumeQuery = defineQuery<LiveResume>('liveResume');

/** `workflow_configurations.max_call_duration` when the agent sets none. */
export const DEFAULT_MAX_CALL_DURATION_SECONDS = 300;

// ---------------------------------------------------------------------------------------------
// Campaigns (contract between the API, the campaign workflow and its child call workflows)
// ---------------------------------------------------------------------------------------------

/** One dial of one contact, as the workflow and the activities key it. */
export const campaignAttemptKey = (contactId: string, attempt: number): string => `${contactId}/${attempt}`;

/** One long-running workflow per campaign. */
export const campaignWorkflowId = (campaignId: number): string => `campaign-${campaignId}`;

/** Deterministic child ids: a restart can never start the same attempt twice. */
export const campaignCallWorkflowId = (campaignId: number, contactId: string, attempt: number): string =>
  `campaign-${campaignId}/contact-${contactId}/attempt-${attempt}`;

export interface CampaignWorkflowInput {
  campaignId: number;
  /** Present after continue-as-new: only a cursor and what is in flight, never contact lists. */
  carry?: CampaignCarryOver;
}

export interface CampaignCarryOver {
  /** Contacts with id <= cursor have been queued once already. */
  contactCursor: string;
  state: CampaignState;
  settings: CampaignSettings;
  /** Child call workflows started and not yet reported (with the contact's own timezone, if any). */
  inFlight: (CampaignCallLink & { timezone?: string | null })[];
  /**
   * Retries waiting for their delay: contact, next attempt number and when it is due (epoch ms).
   * Also first attempts waiting for a window of the contact's own `timezone`.
   */
  retries: {
    contactId: string;
    attempt: number;
    dueAt: number;
    timezone?: string | null;
    /** What it waits for: the delay after this outcome, a calling window, or a route to dial through. */
    cause: WaitCause;
  }[];
  /** Recent outcomes for the circuit breaker (epoch ms, failed?). */
  breakerWindow: { at: number; failed: boolean }[];
  /** The contact paging is exhausted. */
  sourceExhausted: boolean;
  /** Batches in a row that could not be dialed at all (no usable configuration or agent version). */
  routeFailures?: number;
  /** Attempts (`contactId/attempt`) dialed through the configuration the campaign failed over from. */
  breakerSkips?: string[];
  /** What the analyses of the campaign's calls said so far (absent: none yet). */
  analysis?: CampaignAnalysisTally;
  /** Runs whose analysis the campaign still expects. */
  awaitingAnalysis?: number[];
}

/** The analyses a campaign heard of, summed: how its analysed calls went, for the Temporal UI. */
export interface CampaignAnalysisTally {
  analysed: number;
  /** Calls with a success evaluation, and those of them judged successful. */
  evaluated: number;
  successful: number;
  sentiment: { positive: number; neutral: number; negative: number };
  /** Calls per tag, for the most frequent tags only. */
  tags: Record<string, number>;
}

/** Why a dial waits: a retry's delay after this outcome, a calling window, or a usable route. */
export type WaitCause = TerminalCallStatus | 'window' | 'unroutable' | 'frequency_capped';

/** Identifies one dial of one contact; the child workflow carries it to report back. */
export interface CampaignCallLink {
  /** The parent's workflow id (`campaign-<id>`): stable across continue-as-new. */
  parentWorkflowId: string;
  campaignId: number;
  contactId: string;
  attempt: number;
}

/** A child call workflow finished (or could not start): sent to `campaign-<id>` by workflow id. */
export interface CampaignCallResult extends CampaignCallLink {
  runId: number | null;
  /** A terminal call status, or `error` when the call could not be initiated. */
  outcome: TerminalCallStatus;
  /** The call is analysed next and will report its analysis (`campaignCallAnalysedSignal`). */
  analysisFollows?: boolean;
}

/** What a campaign's call's analysis said, in short: no transcript, no fields, tag names only. */
export interface CampaignCallAnalysis {
  runId: number;
  /** Null: the analysis could not be done or gave nothing; the campaign stops expecting it. */
  summary: {
    successful: boolean | null;
    sentiment: 'positive' | 'neutral' | 'negative' | null;
    tags: string[];
  } | null;
}

export interface CampaignProgress {
  campaignId: number;
  state: CampaignState;
  total_rows: number;
  /** Attempts queued so far, retries included. */
  total_queued_count: number;
  /** Attempts dialed. */
  executed_count: number;
  /** Contacts with a final outcome. */
  processed_rows: number;
  /** Contacts whose final outcome is not `completed`. */
  failed_rows: number;
  /** Contacts never dialed because their number is on the do-not-call list. */
  dnc_skipped: number;
  /** Dials put off by a frequency cap. */
  frequency_capped: number;
  /** Contacts whose call was transferred to a person (also in processed_rows, as `completed`). */
  transferred: number;
  in_flight: number;
  pending_retries: number;
  /** Final outcomes by call status. */
  outcomes: Partial<Record<TerminalCallStatus, number>>;
  /** Set while waiting for a schedule window. */
  next_open_at: string | null;
  /** The Query only: the queued dials' waits by cause, for saying why the campaign is not dialing. */
  waiting?: { cause: WaitCause; count: number; next_due_at: string }[];
  /** The Query only: the most calls it places at once. */
  max_concurrency?: number;
}

export const campaignCallFinishedSignal = defineSignal<[CampaignCallResult]>('campaignCallFinished');

/** Sent by a campaign's call to `campaign-<id>` after its post-call analysis, once it has reported its outcome. */
export const campaignCallAnalysedSignal = defineSignal<[CampaignCallAnalysis]>('campaignCallAnalysed');

/**
 * Sent by a campaign to a child still in flight when the campaign continues as new:
 * the child then reports with `campaignCallFinishedSignal`, which reaches the campaign's next run.
 */
export const campaignReportRequestedSignal = defineSignal('campaignReportRequested');

/**
 * Transitions go through Updates so the API answers only after the workflow accepted them; each
 * returns the state after the update. A wrong-state update is rejected by its validator with an
 * ApplicationFailure of type `CampaignStateConflict` whose message names the current state.
 */
export const pauseCampaignUpdate = defineUpdate<CampaignState>('pauseCampaign');
export const resumeCampaignUpdate = defineUpdate<CampaignState>('resumeCampaign');
export const cancelCampaignUpdate = defineUpdate<CampaignState>('cancelCampaign');
/** Accepted only while paused; takes effect on resume. */
export const configureCampaignUpdate = defineUpdate<CampaignState, [Partial<CampaignSettings>]>('configureCampaign');

export const campaignProgressQuery = defineQuery<CampaignProgress>('campaignProgress');
