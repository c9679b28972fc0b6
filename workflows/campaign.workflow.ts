import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  AttemptOutcome,
  CampaignCounters,
  ContactRef,
  createCampaignActivities,
  PreparedAttempt,
} from '../activities/campaign.activities';
import type { CampaignLogEntry } from '../activities/campaign/campaign-log';
import type { createCampaignReportActivities } from '../activities/campaign-report.activities';
import { breakerTrip, isBreakerFailure, type BreakerEntry } from './campaign/breaker';
import { shouldRetry } from './campaign/retry';
import { nextOpening } from './campaign/schedule';
import { settingsChangeProblem } from './campaign/settings-change';
import { campaignDetails, callSummary } from './campaign/ui-metadata';
import { callWorkflow } from './call.workflow';
import {
  campaignCallFinishedSignal,
  campaignCallWorkflowId,
  campaignProgressQuery,
  cancelCampaignUpdate,
  configureCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type CampaignCallLink,
  type CampaignCallResult,
  type CampaignCarryOver,
  type CampaignProgress,
  type CampaignSettings,
  type CampaignState,
  type CallOutcome,
  type CampaignWorkflowInput,
  type TerminalCallStatus,
} from './definitions';
import { CampaignStateAttribute } from './search-attributes';

type CampaignActivities = ReturnType<typeof createCampaignActivities>;
type ReportActivities = ReturnType<typeof createCampaignReportActivities>;

// Every campaign activity writes PostgreSQL idempotently: retried until the database takes it.
const {
  openCampaign,
  fetchCampaignContacts,
  prepareCampaignAttempts,
  recordCampaignOutcomes,
  transitionCampaign,
  logCampaignEvent,
  saveCampaignSettings,
  campaignRunOutcome,
  closeCampaignRetries,
} = proxyActivities<CampaignActivities>({
  // Short: a worker killed mid-activity holds the campaign up for this long before the retry.
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// Signals only; retried until Temporal takes them.
const { askCampaignCallsToReport } = proxyActivities<ReportActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Contacts fetched per page: the only contact data that enters the history, ids and timezones. */
const PAGE_SIZE = 500;
/** Contacts waiting for their own timezone's window beyond which no new page is taken. */
const MAX_WAITING = 1_000;
/**
 * When the campaign cannot dial at all (no usable telephony configuration or agent version), its
 * contacts are held and tried again after this delay; the third failure in a row fails the campaign.
 */
export const ROUTE_RETRY_MS = 10_000;
const ROUTE_FAILURES_TO_FAIL = 3;
/** After a cancel, how long the campaign waits for its calls in flight to report their outcomes. */
const IN_FLIGHT_DRAIN_MS = 15 * 60_000;

/** A dial waiting to happen: a contact's next attempt, due at `dueAt` (epoch ms, workflow time). */
interface Waiting {
  contactId: string;
  attempt: number;
  dueAt: number;
  timezone?: string | null;
}

interface InFlight {
  link: CampaignCallLink;
  timezone: string | null;
}

/** A child's report, or an initiation failure, waiting to be recorded. */
interface Reported extends CampaignCallResult {
  initiationError?: string;
  /** The contact's own timezone, for its retry's window. */
  timezone?: string | null;
}

const TERMINAL: CampaignState[] = ['completed', 'failed', 'cancelled'];
const attemptKey = (contactId: string, attempt: number): string => `${contactId}/${attempt}`;

const conflict = (state: CampaignState) =>
  ApplicationFailure.create({ type: 'CampaignStateConflict', message: `Campaign is ${state}`, nonRetryable: true });

/**
 * One campaign (`campaign-<id>`): dials every contact of its source through child call workflows,
 * at most `max_concurrency` at a time, inside the schedule's windows; retries busy / no-answer /
 * voicemail after a durable timer; pauses itself when the circuit breaker trips; obeys pause,
 * resume, cancel and configuration Updates; completes when every contact has a final outcome.
 * Contacts are paged from PostgreSQL by a cursor. The campaign learns a call's outcome from its
 * child's completion; before it continues as new, it asks the children still in flight to report
 * by signal, by workflow id, which reaches the next run.
 */
export async function campaignWorkflow(input: CampaignWorkflowInput): Promise<CampaignProgress> {
  const { campaignId, carry } = input;
  const parentWorkflowId = workflowInfo().workflowId;
  // Runs started before this change learn every outcome from the children's signals, as recorded.
  const learnsFromCompletion = patched('learn-outcomes-from-child-completion');

  let state: CampaignState = carry?.state ?? 'running';
  let settings: CampaignSettings | undefined = carry?.settings;
  let counters: CampaignCounters | undefined;
  let outcomes: Partial<Record<TerminalCallStatus, number>> = {};
  let opened = false;

  /** Contacts with id <= cursor have been taken from the source once. */
  let cursor = carry?.contactCursor ?? '0';
  let fetchedUpTo = cursor;
  let sourceExhausted = carry?.sourceExhausted ?? false;
  const page: ContactRef[] = [];
  const inFlight = new Map<string, InFlight>(
    (carry?.inFlight ?? []).map(({ timezone, ...link }) => [
      attemptKey(link.contactId, link.attempt),
      { link, timezone: timezone ?? null },
    ]),
  );
  let waiting: Waiting[] = [...(carry?.retries ?? [])];
  let breakerWindow: BreakerEntry[] = [...(carry?.breakerWindow ?? [])];
  const reported: Reported[] = [];
  /** Child starts under way: awaited before the run ends or continues as new. */
  const starting = new Set<Promise<void>>();
  /** Workflow ids of this run's children whose completion has not arrived (and who were not asked to signal). */
  const completionDue = new Set<string>();
  /** The opening the campaign waits for (logged once per wait). */
  let nextOpenAt: number | null = null;
  let changed = false;
  /** Batches in a row that could not be dialed at all (carried over: a failing campaign keeps counting). */
  let routeFailures = carry?.routeFailures ?? 0;

  // State writes go one after another, so a fast pause + resume lands in PostgreSQL in order.
  let writes: Promise<void> = Promise.resolve();
  const serially = (write: () => Promise<void>): Promise<void> => {
    const next = writes.then(write);
    writes = next.catch(() => undefined);
    return next;
  };

  const setState = (next: CampaignState): void => {
    state = next;
    changed = true;
    upsertSearchAttributes([{ key: CampaignStateAttribute, value: next }]);
  };

  const transition = (from: CampaignState[], to: CampaignState, entry: CampaignLogEntry): Promise<void> => {
    setState(to);
    return serially(() => transitionCampaign({ campaignId, from, to, log: entry }));
  };

  const current = (): CampaignSettings => {
    if (!settings) throw new Error('campaign settings are read before the campaign was opened');
    return settings;
  };

  const receive = (result: Reported): void => {
    const key = attemptKey(result.contactId, result.attempt);
    const entry = inFlight.get(key);
    // Only the dial in flight counts: a repeated or late report changes nothing.
    if (!entry) return;
    inFlight.delete(key);
    reported.push({ ...result, timezone: entry.timezone });
  };
  setHandler(campaignCallFinishedSignal, receive);

  const progress = (): CampaignProgress => ({
    campaignId,
    state,
    total_rows: counters?.total_rows ?? 0,
    total_queued_count: counters?.total_queued_count ?? 0,
    executed_count: counters?.executed_count ?? 0,
    processed_rows: counters?.processed_rows ?? 0,
    failed_rows: counters?.failed_rows ?? 0,
    in_flight: inFlight.size,
    pending_retries: waiting.length,
    outcomes: { ...outcomes },
    next_open_at: nextOpenAt === null ? null : new Date(nextOpenAt).toISOString(),
  });
  setHandler(campaignProgressQuery, progress);
  /** The Temporal UI shows these as the campaign's current details, without a query. */
  const showProgress = (): void => setCurrentDetails(campaignDetails(progress()));

  // Transitions: validators reject a wrong state (the API answers 409 naming it); handlers change
  // the state at once, then write it (after the campaign was opened) before the Update answers.
  const requireState =
    (...allowed: CampaignState[]) =>
    (): void => {
      if (!allowed.includes(state)) throw conflict(state);
    };
  const whenOpened = () => condition(() => opened);

  setHandler(
    pauseCampaignUpdate,
    async () => {
      requireState('running')();
      await transition(['running'], 'paused', { level: 'info', event: 'campaign_paused', message: 'Campaign paused' });
      return state;
    },
    { validator: requireState('running') },
  );
  setHandler(
    resumeCampaignUpdate,
    async () => {
      requireState('paused')();
      breakerWindow = [];
      nextOpenAt = null;
      await transition(['paused'], 'running', {
        level: 'info',
        event: 'campaign_resumed',
        message: 'Campaign resumed',
      });
      return state;
    },
    { validator: requireState('paused') },
  );
  setHandler(
    cancelCampaignUpdate,
    async () => {
      requireState('draft', 'running', 'paused')();
      await transition(['draft', 'running', 'paused'], 'cancelled', {
        level: 'info',
        event: 'campaign_cancelled',
        message: 'Campaign cancelled',
      });
      return state;
    },
    { validator: requireState('draft', 'running', 'paused') },
  );
  setHandler(
    configureCampaignUpdate,
    async (change) => {
      requireState('paused')();
      await whenOpened();
      settings = { ...current(), ...change };
      changed = true;
      await serially(() => saveCampaignSettings({ campaignId, change }));
      return state;
    },
    {
      // The REST schema's rules: an invalid change never enters the history, whoever sends it.
      validator: (change: Partial<CampaignSettings>) => {
        requireState('paused')();
        const problem = settingsChangeProblem(change);
        if (problem !== null) {
          throw ApplicationFailure.create({ type: 'InvalidCampaignSettings', message: problem, nonRetryable: true });
        }
      },
    },
  );

  // A wrong-state update can arrive before the first activity: transitions queue behind it.
  await serially(async () => {
    const campaign = await openCampaign({ campaignId });
    settings ??= campaign.settings;
    counters = campaign.counters;
    outcomes = campaign.outcomes;
    // Updates may have moved the state already; only an ended campaign overrides it.
    if (TERMINAL.includes(campaign.state)) state = campaign.state;
  });
  opened = true;
  upsertSearchAttributes([{ key: CampaignStateAttribute, value: state }]);

  /** Records what the children reported: retries are queued, final outcomes counted, the breaker fed. */
  const recordReported = async (): Promise<void> => {
    const batch = reported.splice(0);
    if (batch.length === 0) return;
    const now = Date.now();
    const { retry_config: retryConfig } = current();
    // A cancelled or failed campaign dials nothing more: what its last calls reported is final.
    const closed = TERMINAL.includes(state);
    const records: AttemptOutcome[] = batch.map((result) => {
      const retry = !closed && shouldRetry(result.outcome, result.attempt, retryConfig);
      return {
        contactId: result.contactId,
        attempt: result.attempt,
        outcome: result.outcome,
        runId: result.runId,
        final: !retry,
        ...(retry ? { retryAt: now + retryConfig.retry_delay_seconds * 1000 } : {}),
        ...(result.initiationError !== undefined ? { initiationError: result.initiationError } : {}),
      };
    });
    counters = await recordCampaignOutcomes({ campaignId, outcomes: records });
    records.forEach((record, index) => {
      if (record.final) outcomes[record.outcome] = (outcomes[record.outcome] ?? 0) + 1;
      else if (record.retryAt !== undefined) {
        const timezone = batch[index]?.timezone;
        waiting.push({ contactId: record.contactId, attempt: record.attempt + 1, dueAt: record.retryAt, timezone });
      }
    });
    if (state !== 'running') return;
    // The breaker sees outcomes while running only; resume starts a new window.
    breakerWindow.push(...records.map((record) => ({ at: now, failed: isBreakerFailure(record.outcome) })));
    const breaker = current().circuit_breaker;
    breakerWindow = breakerWindow.filter((entry) => entry.at > now - breaker.window_seconds * 1000);
    const trip = breakerTrip(breakerWindow, breaker, now);
    if (!trip) return;
    const percent = (value: number) => `${(value * 100).toFixed(2)}%`;
    await transition(['running'], 'paused', {
      level: 'warning',
      event: 'circuit_breaker_tripped',
      message:
        `Paused: failure rate ${percent(trip.failure_rate)} (${trip.failure_count}/${trip.call_count}) exceeded ` +
        `threshold ${percent(trip.threshold)} in ${trip.window_seconds}s window`,
      details: { ...trip },
    });
  };

  /** The outcome of a child of this run, from its completion (a child that failed or was terminated: `error`). */
  const awaitCompletion = (workflowId: string, link: CampaignCallLink, runId: number, result: Promise<CallOutcome>) => {
    completionDue.add(workflowId);
    void result
      .then(
        (outcome) => receive({ ...link, runId, outcome: outcome.callStatus }),
        (error: unknown) => {
          log.warn('campaign call did not complete', { campaignId, workflowId, error: String(error) });
          receive({ ...link, runId, outcome: 'error' });
        },
      )
      .finally(() => completionDue.delete(workflowId));
  };

  /**
   * Asks these children to report by signal, which reaches the next run; those that have ended
   * already report by their completion, which reaches this run only: it is waited for.
   */
  const askToReport = async (workflowIds: string[]): Promise<void> => {
    if (workflowIds.length === 0) return;
    const ended = new Set(await askCampaignCallsToReport({ workflowIds }));
    for (const workflowId of workflowIds) if (!ended.has(workflowId)) completionDue.delete(workflowId);
    await condition(() => [...ended].every((workflowId) => !completionDue.has(workflowId)));
  };

  /** Starts one prepared dial as a child call workflow; a start that fails reports the attempt failed. */
  const startDial = async (dial: PreparedAttempt & { ok: true }, link: CampaignCallLink): Promise<void> => {
    const workflowId = campaignCallWorkflowId(campaignId, dial.contactId, dial.attempt);
    try {
      const child = await startChild(callWorkflow, {
        workflowId,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        ...callSummary(campaignId, dial),
        args: [
          {
            runId: dial.runId,
            attempt: dial.attempt,
            maxDurationSeconds: dial.maxDurationSeconds,
            campaign: link,
            // A worker of the previous release has the call report by signal, as before.
            campaignReport: learnsFromCompletion ? 'when-asked' : 'local-activity',
            conclusion: 'one-activity',
            ...(dial.conversation ? { conversation: dial.conversation } : {}),
          },
        ],
      });
      if (learnsFromCompletion) awaitCompletion(workflowId, link, dial.runId, child.result());
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        // Started by an earlier run of this campaign: its report comes, unless it came already.
        // (Asked again: that run may have ended other than by continuing as new, as in a reset.)
        const ended = learnsFromCompletion ? await askCampaignCallsToReport({ workflowIds: [workflowId] }) : [];
        const outcome = await campaignRunOutcome({ runId: dial.runId });
        if (outcome) receive({ ...link, runId: dial.runId, outcome });
        // Ended without writing an outcome (terminated): no report will come.
        else if (ended.length > 0) receive({ ...link, runId: dial.runId, outcome: 'error' });
        return;
      }
      log.warn('campaign call could not be started', { campaignId, error: String(error) });
      receive({ ...link, runId: dial.runId, outcome: 'error', initiationError: String(error) });
    }
  };

  /** Next page of contacts after the last fetched one. */
  const fetchPage = async (): Promise<void> => {
    const contacts = await fetchCampaignContacts({ campaignId, after: fetchedUpTo, limit: PAGE_SIZE });
    page.push(...contacts);
    const last = contacts.at(-1);
    if (last) fetchedUpTo = last.contactId;
    if (contacts.length < PAGE_SIZE) sourceExhausted = true;
  };

  /**
   * Nothing can be dialed (the organization has no usable configuration or agent version): the
   * batch goes back to wait, so no contact is spent on it, and the campaign tries again later;
   * the third failure in a row fails the campaign.
   */
  const holdUnroutable = async (batch: Waiting[], error: string): Promise<void> => {
    routeFailures += 1;
    const dueAt = Date.now() + ROUTE_RETRY_MS;
    for (const item of batch) {
      inFlight.delete(attemptKey(item.contactId, item.attempt));
      waiting.push({ ...item, dueAt });
    }
    const details = { error, consecutive_failures: routeFailures };
    if (routeFailures < ROUTE_FAILURES_TO_FAIL) {
      await logCampaignEvent({
        campaignId,
        entry: {
          level: 'warning',
          event: 'call_initiation_failed',
          message: `No call can be placed: ${error}; trying again in ${ROUTE_RETRY_MS / 1000}s`,
          details,
        },
      });
      return;
    }
    await transition(['running', 'paused'], 'failed', {
      level: 'error',
      event: 'campaign_failed',
      message: `Campaign failed: ${error}`,
      details,
    });
  };

  /**
   * Fills free slots: due retries first, then the next contacts in id order. A contact outside the
   * campaign's window holds the queue until it opens; one with its own timezone waits on its own.
   * Returns the earliest opening that held a contact back, if any.
   */
  const dispatch = async (): Promise<number | null> => {
    const { max_concurrency: limit, schedule_config: schedule } = current();
    const now = Date.now();
    const batch: Waiting[] = [];
    let heldUntil: number | null = null;
    const hold = (opens: number) => {
      heldUntil = heldUntil === null ? opens : Math.min(heldUntil, opens);
    };
    const free = () => limit - inFlight.size - batch.length;

    const due = waiting.filter((item) => item.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
    waiting = waiting.filter((item) => item.dueAt > now);
    for (const item of due) {
      const opens = nextOpening(schedule, item.timezone, now);
      if (free() <= 0) waiting.push(item);
      else if (opens > now) {
        hold(opens);
        waiting.push({ ...item, dueAt: opens });
      } else batch.push(item);
    }
    while (free() > 0) {
      if (page.length === 0) {
        if (sourceExhausted || waiting.length >= MAX_WAITING) break;
        await fetchPage();
        if (page.length === 0) break;
      }
      const next = page[0];
      if (!next) break;
      const opens = nextOpening(schedule, next.timezone, now);
      if (opens > now && !next.timezone) {
        hold(opens);
        break;
      }
      page.shift();
      cursor = next.contactId;
      if (opens > now) {
        hold(opens);
        waiting.push({ contactId: next.contactId, attempt: 1, dueAt: opens, timezone: next.timezone });
      } else batch.push({ contactId: next.contactId, attempt: 1, dueAt: now, timezone: next.timezone });
    }
    if (batch.length === 0) return heldUntil;

    for (const item of batch) {
      const link = { parentWorkflowId, campaignId, contactId: item.contactId, attempt: item.attempt };
      inFlight.set(attemptKey(item.contactId, item.attempt), { link, timezone: item.timezone ?? null });
    }
    const prepared = await prepareCampaignAttempts({
      campaignId,
      attempts: batch.map(({ contactId, attempt }) => ({ contactId, attempt })),
    });
    counters = prepared.counters;
    if (prepared.routeError !== null && patched('hold-contacts-without-route')) {
      await holdUnroutable(batch, prepared.routeError);
      return null;
    }
    routeFailures = 0;
    for (const dial of prepared.prepared) {
      const entry = inFlight.get(attemptKey(dial.contactId, dial.attempt));
      if (!entry) continue;
      if (!dial.ok) {
        receive({ ...entry.link, runId: null, outcome: 'error', initiationError: dial.error });
        continue;
      }
      const started = startDial(dial, entry.link).finally(() => starting.delete(started));
      starting.add(started);
    }
    return null;
  };

  const settle = async (): Promise<void> => {
    await Promise.all([...starting]);
    await condition(allHandlersFinished);
    await writes;
  };

  const allDone = (): boolean =>
    sourceExhausted &&
    page.length === 0 &&
    waiting.length === 0 &&
    inFlight.size === 0 &&
    reported.length === 0 &&
    starting.size === 0;

  for (;;) {
    if (TERMINAL.includes(state)) break;
    changed = false;
    await recordReported();
    let heldUntil: number | null = null;
    if (state === 'running') {
      heldUntil = await dispatch();
      if (heldUntil !== null && inFlight.size === 0 && heldUntil !== nextOpenAt) {
        nextOpenAt = heldUntil;
        const nextOpen = new Date(heldUntil).toISOString();
        await logCampaignEvent({
          campaignId,
          entry: {
            level: 'info',
            event: 'waiting_for_schedule_window',
            message: `Outside the calling window; next window opens at ${nextOpen}`,
            details: { next_open_at: nextOpen },
          },
        });
      } else if (heldUntil === null && inFlight.size > 0) nextOpenAt = null;
    }
    if (TERMINAL.includes(state)) break;
    if (allDone() && (state === 'running' || state === 'paused')) {
      await transition(['running', 'paused'], 'completed', {
        level: 'info',
        event: 'campaign_completed',
        message: `Campaign completed: ${counters?.processed_rows ?? 0} contacts processed`,
        details: { ...counters },
      });
      break;
    }
    if (workflowInfo().continueAsNewSuggested) {
      await settle();
      await askToReport([...completionDue]);
      // Reports are not carried over: record every one, up to the moment the run continues.
      while (reported.length > 0) await recordReported();
      if (!TERMINAL.includes(state)) {
        const carryOver: CampaignCarryOver = {
          contactCursor: cursor,
          state,
          settings: current(),
          inFlight: [...inFlight.values()].map(({ link, timezone }) => ({ ...link, timezone })),
          retries: waiting,
          breakerWindow,
          sourceExhausted: sourceExhausted && page.length === 0,
          ...(routeFailures > 0 ? { routeFailures } : {}),
        };
        await continueAsNew<typeof campaignWorkflow>({ campaignId, carry: carryOver });
      }
      break;
    }
    // Due retries wake the loop only when a slot is free; otherwise a child's report does.
    const slotFree = inFlight.size < current().max_concurrency;
    const wakeAt =
      state === 'running' && slotFree
        ? Math.min(...waiting.map((item) => item.dueAt), heldUntil ?? Infinity)
        : Infinity;
    const wake = () => changed || reported.length > 0 || TERMINAL.includes(state);
    showProgress();
    if (wakeAt === Infinity) await condition(wake);
    else await condition(wake, Math.max(1, wakeAt - Date.now()));
  }

  // Cancelled: calls in flight are not cut off; their outcomes are still recorded, so no attempt is
  // left dialing (bounded, in case a call never reports). A completed campaign has none in flight.
  if (inFlight.size > 0 && patched('await-in-flight-after-cancel')) {
    await condition(() => inFlight.size === 0, IN_FLIGHT_DRAIN_MS);
  }
  await settle();
  while (reported.length > 0) await recordReported();
  // Retries still waiting are never dialed: their contacts keep their last outcome, as final.
  if (waiting.length > 0) {
    const closed = await closeCampaignRetries({ campaignId });
    counters = closed.counters;
    for (const [status, count] of Object.entries(closed.outcomes) as [TerminalCallStatus, number][]) {
      outcomes[status] = (outcomes[status] ?? 0) + count;
    }
  }
  waiting = [];
  // The result is the campaign's final summary: its counters and outcomes.
  const summary = progress();
  setCurrentDetails(campaignDetails(summary));
  return summary;
}
