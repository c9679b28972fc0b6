import type {
  AttemptOutcome,
  CampaignCounters,
  ContactRef,
  OpenedCampaign,
} from '../../activities/campaign.activities';
import type { ScreenedDial } from '../../activities/dial-rules.activities';
import {
  campaignAttemptKey,
  type CampaignAnalysisTally,
  type CampaignCallAnalysis,
  type CampaignCallLink,
  type CampaignCallResult,
  type CampaignCarryOver,
  type CampaignProgress,
  type CampaignSettings,
  type CampaignState,
  type TerminalCallStatus,
  type WaitCause,
} from '../definitions';
import { isTerminalCampaignState } from '../../domain/campaigns/settings';
import { waitGroups } from '../../domain/campaigns/not-dialing-reasons';
import { AnalysisTally } from './analysis-tally';
import { breakerTrip, isBreakerFailure, withinWindow, type BreakerEntry, type BreakerFigures } from './breaker';
import { shouldRetry } from './retry';
import { nextOpening, windowZone } from './schedule';
import { timerSummary } from './ui-metadata';

/** Contacts fetched per page: the only contact data that enters the history, ids and timezones. */
export const PAGE_SIZE = 500;
/** Contacts waiting for their own timezone's window beyond which no new page is taken. */
const MAX_WAITING = 1_000;
/**
 * When the campaign cannot dial at all (no usable telephony configuration or agent version), its
 * contacts are held and tried again after this delay; the third failure in a row fails the campaign.
 */
export const ROUTE_RETRY_MS = 10_000;
const ROUTE_FAILURES_TO_FAIL = 3;

/** A dial waiting to happen: a contact's next attempt, due at `dueAt` (epoch ms, workflow time). */
export interface Waiting {
  contactId: string;
  attempt: number;
  dueAt: number;
  timezone?: string | null;
  cause: WaitCause;
}

/** A dial in flight, with the contact's own timezone (for its retry's window). */
type InFlight = CampaignCallLink & { timezone: string | null };

/** What one run carries into the next, as the tracker keeps it (settings are known once opened). */
interface Carried extends Omit<
  CampaignCarryOver,
  'settings' | 'inFlight' | 'routeFailures' | 'breakerSkips' | 'analysis' | 'awaitingAnalysis'
> {
  settings: CampaignSettings | undefined;
  inFlight: InFlight[];
  retries: Waiting[];
  breakerWindow: BreakerEntry[];
  routeFailures: number;
  breakerSkips: string[];
}

/** A child's report, or an initiation failure, waiting to be recorded. */
export interface Reported extends CampaignCallResult {
  initiationError?: string;
  /** The contact's own timezone, for its retry's window. */
  timezone?: string | null;
}

/** The dials one dispatch takes, and the earliest window opening that held a contact back. */
export interface Dispatch {
  now: number;
  batch: Omit<Waiting, 'cause'>[];
  heldUntil: number | null;
}

/** A batch that could not be dialed at all: what it means for the campaign. */
export interface Unroutable {
  consecutiveFailures: number;
  /** The campaign has failed to dial too often in a row, and fails. */
  fails: boolean;
}

/**
 * One campaign's state and the decisions over it, with no Temporal calls in it: what to dial now,
 * what a report changes, what is carried over into the next run, when to wake. The workflow
 * performs the activities these decisions ask for and feeds their results back.
 */
export class CampaignTracker {
  /** What this run carries into the next: one record, which continue-as-new copies whole. */
  private readonly carried: Carried;
  private countersValue: CampaignCounters | undefined;
  private outcomes: Partial<Record<TerminalCallStatus, number>> = {};
  /** The opening the campaign waits for (logged once per wait). */
  private nextOpenAt: number | null = null;
  /** Something a handler did that the loop must look at. */
  private changed = false;
  /** The last contact id fetched: the next page starts after it. */
  private fetchedUpToValue: string;
  private readonly page: ContactRef[] = [];
  private readonly reported: Reported[] = [];
  private failover = { available: false, active: false };
  /** The calls' analyses, carried over with the rest. */
  private readonly analyses: AnalysisTally;

  constructor(
    readonly campaignId: number,
    private readonly parentWorkflowId: string,
    carry?: CampaignCarryOver,
  ) {
    this.carried = {
      contactCursor: carry?.contactCursor ?? '0',
      state: carry?.state ?? 'running',
      settings: carry?.settings,
      inFlight: (carry?.inFlight ?? []).map((entry) => ({ ...entry, timezone: entry.timezone ?? null })),
      retries: [...(carry?.retries ?? [])],
      breakerWindow: [...(carry?.breakerWindow ?? [])],
      sourceExhausted: carry?.sourceExhausted ?? false,
      routeFailures: carry?.routeFailures ?? 0,
      breakerSkips: [...new Set(carry?.breakerSkips ?? [])],
    };
    this.fetchedUpToValue = this.carried.contactCursor;
    this.analyses = new AnalysisTally(carry?.analysis, carry?.awaitingAnalysis);
  }

  /** What the analyses of the campaign's calls said so far. */
  get analysis(): CampaignAnalysisTally {
    return this.analyses.figures;
  }

  /** Analyses announced by a call's report and not heard of yet. */
  get awaitingAnalysisCount(): number {
    return this.analyses.awaitingRuns.length;
  }

  get state(): CampaignState {
    return this.carried.state;
  }

  /** The campaign's counters as the database last reported them. */
  get counters(): CampaignCounters | undefined {
    return this.countersValue;
  }

  /** The last contact id fetched: the next page starts after it. */
  get fetchedUpTo(): string {
    return this.fetchedUpToValue;
  }

  get closed(): boolean {
    return isTerminalCampaignState(this.carried.state);
  }

  get settings(): CampaignSettings {
    const { settings } = this.carried;
    if (!settings) throw new Error('campaign settings are read before the campaign was opened');
    return settings;
  }

  get inFlightCount(): number {
    return this.carried.inFlight.length;
  }

  get hasReports(): boolean {
    return this.reported.length > 0;
  }

  get hasWaiting(): boolean {
    return this.carried.retries.length > 0;
  }

  setState(next: CampaignState): void {
    this.carried.state = next;
    this.changed = true;
  }

  /** The loop looks at the campaign now: what handlers changed until now is seen. */
  looked(): void {
    this.changed = false;
  }

  /** The campaign's counters, as a write to the database returned them. */
  counted(counters: CampaignCounters): void {
    this.countersValue = counters;
  }

  /** What the database holds: settings carried over win; only an ended campaign overrides the state. */
  open(campaign: OpenedCampaign): void {
    this.carried.settings ??= campaign.settings;
    this.countersValue = campaign.counters;
    this.outcomes = campaign.outcomes;
    this.failover = campaign.failover;
    if (isTerminalCampaignState(campaign.state)) this.carried.state = campaign.state;
  }

  /** A trip switches to the fallback configuration instead of pausing, once. */
  get canFailOver(): boolean {
    return this.failover.available && !this.failover.active;
  }

  /**
   * The campaign dials through its fallback from now on: a new breaker window, which the calls
   * still in flight on the configuration it left do not enter.
   */
  failedOver(): void {
    this.failover = { ...this.failover, active: true };
    this.carried.breakerWindow = [];
    const skips = this.carried.breakerSkips;
    for (const entry of this.carried.inFlight) {
      const key = campaignAttemptKey(entry.contactId, entry.attempt);
      if (!skips.includes(key)) skips.push(key);
    }
  }

  /**
   * Settings accepted while paused. A new fallback configuration (or none) re-arms the failover:
   * the campaign dials through its own configuration again, and fails over to the new one next.
   */
  configure(change: Partial<CampaignSettings>): void {
    if (change.fallback !== undefined) {
      const sameRoute =
        change.fallback?.telephony_configuration_id === this.settings.fallback?.telephony_configuration_id;
      this.failover = { available: change.fallback !== null, active: sameRoute && this.failover.active };
    }
    this.carried.settings = { ...this.settings, ...change };
    this.changed = true;
  }

  /** Resume starts a new breaker window and a new wait for the schedule. */
  resume(): void {
    this.carried.breakerWindow = [];
    this.nextOpenAt = null;
  }

  /** A call's report; only the dial in flight counts: a repeated or late report changes nothing. */
  receive(result: Reported): void {
    const entry = this.takeInFlight(result.contactId, result.attempt);
    if (!entry) return;
    this.reported.push({ ...result, timezone: entry.timezone });
    if (result.analysisFollows && result.runId !== null) this.analyses.expect(result.runId);
  }

  /** A call's analysis, counted once; true when it changed the figures. */
  analysed(analysis: CampaignCallAnalysis): boolean {
    return this.analyses.add(analysis);
  }

  /** The progress with what says why it is not dialing: the waits by cause and the concurrency limit. */
  dialingState(): CampaignProgress {
    return {
      ...this.progress(),
      waiting: waitGroups(this.carried.retries),
      ...(this.carried.settings ? { max_concurrency: this.carried.settings.max_concurrency } : {}),
    };
  }

  progress(): CampaignProgress {
    const counters = this.countersValue;
    return {
      campaignId: this.campaignId,
      state: this.carried.state,
      total_rows: counters?.total_rows ?? 0,
      total_queued_count: counters?.total_queued_count ?? 0,
      executed_count: counters?.executed_count ?? 0,
      processed_rows: counters?.processed_rows ?? 0,
      failed_rows: counters?.failed_rows ?? 0,
      dnc_skipped: counters?.dnc_skipped ?? 0,
      frequency_capped: counters?.frequency_capped ?? 0,
      transferred: counters?.transferred ?? 0,
      in_flight: this.carried.inFlight.length,
      pending_retries: this.carried.retries.length,
      outcomes: { ...this.outcomes },
      next_open_at: this.nextOpenAt === null ? null : new Date(this.nextOpenAt).toISOString(),
    };
  }

  /**
   * The reports waiting to be recorded, as the records to write: a retryable outcome of an open
   * campaign queues the next attempt after the delay; anything else is the contact's final outcome.
   */
  takeReports(now: number): { batch: Reported[]; records: AttemptOutcome[] } {
    const batch = this.reported.splice(0);
    const { retry_config: retryConfig } = this.settings;
    // A cancelled or failed campaign dials nothing more: what its last calls reported is final.
    const closed = this.closed;
    const records = batch.map((result): AttemptOutcome => {
      // A machine's answer is retried only when the campaign leaves it for later.
      const settled = result.outcome === 'voicemail' && this.settings.voicemail_action !== 'retry_later';
      const retry = !closed && !settled && shouldRetry(result.outcome, result.attempt, retryConfig);
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
    return { batch, records };
  }

  /**
   * Takes in what was written for `takeReports`: final outcomes are counted, retries queued, and a
   * running campaign's breaker fed. Returns the breaker's figures when it trips.
   */
  recorded(
    batch: Reported[],
    records: AttemptOutcome[],
    counters: CampaignCounters,
    now: number,
  ): BreakerFigures | null {
    this.countersValue = counters;
    records.forEach((record, index) => {
      if (record.final) this.outcomes[record.outcome] = (this.outcomes[record.outcome] ?? 0) + 1;
      else if (record.retryAt !== undefined) {
        const timezone = batch[index]?.timezone;
        this.carried.retries.push({
          contactId: record.contactId,
          attempt: record.attempt + 1,
          dueAt: record.retryAt,
          timezone,
          cause: record.outcome,
        });
      }
    });
    // The breaker sees outcomes while running only; resume starts a new window.
    if (this.carried.state !== 'running') return null;
    const breaker = this.settings.circuit_breaker;
    const judged = records.filter((record) => !this.skipsBreaker(campaignAttemptKey(record.contactId, record.attempt)));
    this.carried.breakerWindow = withinWindow(
      [
        ...this.carried.breakerWindow,
        ...judged.map((record) => ({ at: now, failed: isBreakerFailure(record.outcome) })),
      ],
      breaker,
      now,
    );
    return breakerTrip(this.carried.breakerWindow, breaker, now);
  }

  /** Starts a dispatch at `now`: the due retries that fit and may be dialed now. */
  beginDispatch(now: number): Dispatch {
    const dispatch: Dispatch = { now, batch: [], heldUntil: null };
    const { schedule_config: schedule } = this.settings;
    const { carried } = this;
    const due = carried.retries.filter((item) => item.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
    carried.retries = carried.retries.filter((item) => item.dueAt > now);
    for (const item of due) {
      const opens = nextOpening(schedule, item.timezone, now);
      if (this.freeSlots(dispatch) <= 0) carried.retries.push(item);
      else if (opens > now) {
        hold(dispatch, opens);
        carried.retries.push({ ...item, dueAt: opens, cause: 'window' });
      } else dispatch.batch.push(item);
    }
    return dispatch;
  }

  /**
   * Takes the next contacts, in id order, into the dispatch while slots are free. A contact outside
   * the campaign's window holds the queue until it opens; one with its own timezone waits on its
   * own. Returns true when it stopped for want of a page that should be fetched.
   */
  takeContacts(dispatch: Dispatch): boolean {
    const { now } = dispatch;
    const { schedule_config: schedule } = this.settings;
    const { carried } = this;
    while (this.freeSlots(dispatch) > 0) {
      const next = this.page[0];
      if (!next) return !carried.sourceExhausted && carried.retries.length < MAX_WAITING;
      const opens = nextOpening(schedule, next.timezone, now);
      if (opens > now && !next.timezone) {
        hold(dispatch, opens);
        return false;
      }
      this.page.shift();
      carried.contactCursor = next.contactId;
      const item = { contactId: next.contactId, attempt: 1, timezone: next.timezone };
      if (opens > now) {
        hold(dispatch, opens);
        carried.retries.push({ ...item, dueAt: opens, cause: 'window' });
      } else dispatch.batch.push({ ...item, dueAt: now });
    }
    return false;
  }

  /** A fetched page of contacts; a short page means the source is exhausted. */
  addPage(contacts: ContactRef[]): void {
    this.page.push(...contacts);
    const last = contacts.at(-1);
    if (last) this.fetchedUpToValue = last.contactId;
    if (contacts.length < PAGE_SIZE) this.carried.sourceExhausted = true;
  }

  /** The dispatch's dials are in flight from now on. */
  launch(dispatch: Dispatch): void {
    const { inFlight } = this.carried;
    for (const { contactId, attempt, timezone } of dispatch.batch) {
      const entry = { ...this.linkOf(contactId, attempt), timezone: timezone ?? null };
      const index = this.inFlightIndex(contactId, attempt);
      if (index === -1) inFlight.push(entry);
      else inFlight[index] = entry;
    }
  }

  /**
   * What the dial rules decided for the dispatch's batch: a contact on the do-not-call list is done
   * (the screening counted it), a capped one waits until the caps allow it, inside its calling
   * window; the rest stay in the batch to be dialed.
   */
  screened(dispatch: Dispatch, dials: ScreenedDial[]): void {
    const held = new Set<string>();
    for (const dial of dials) {
      if (dial.verdict === 'dial') continue;
      const entry = this.takeInFlight(dial.contactId, dial.attempt);
      if (!entry) continue;
      held.add(campaignAttemptKey(dial.contactId, dial.attempt));
      if (dial.verdict === 'capped') {
        const { timezone } = entry;
        const dueAt = nextOpening(this.settings.schedule_config, timezone, dial.allowedAt);
        this.carried.retries.push({
          contactId: dial.contactId,
          attempt: dial.attempt,
          dueAt,
          timezone,
          cause: 'frequency_capped',
        });
      }
    }
    dispatch.batch = dispatch.batch.filter((item) => !held.has(campaignAttemptKey(item.contactId, item.attempt)));
  }

  /** The link of a dial still in flight (a report may have arrived meanwhile). */
  inFlightLink(contactId: string, attempt: number): CampaignCallLink | undefined {
    return this.inFlightIndex(contactId, attempt) === -1 ? undefined : this.linkOf(contactId, attempt);
  }

  /** The batch was routed: a failing streak ends. */
  routed(): void {
    this.carried.routeFailures = 0;
  }

  /**
   * Nothing can be dialed (no usable configuration or agent version): the batch goes back to wait,
   * so no contact is spent on it, and is tried again after `ROUTE_RETRY_MS`.
   */
  holdUnroutable(dispatch: Dispatch, now: number): Unroutable {
    const { carried } = this;
    carried.routeFailures += 1;
    for (const item of dispatch.batch) {
      this.takeInFlight(item.contactId, item.attempt);
      carried.retries.push({ ...item, dueAt: now + ROUTE_RETRY_MS, cause: 'unroutable' });
    }
    return { consecutiveFailures: carried.routeFailures, fails: carried.routeFailures >= ROUTE_FAILURES_TO_FAIL };
  }

  /**
   * After a dispatch: the window opening to announce, when the campaign has nothing in flight and
   * waits for a new one; a wait ends once calls are in flight again.
   */
  windowToAnnounce(heldUntil: number | null): number | null {
    const inFlight = this.carried.inFlight.length;
    if (heldUntil !== null && inFlight === 0 && heldUntil !== this.nextOpenAt) {
      this.nextOpenAt = heldUntil;
      return heldUntil;
    }
    if (heldUntil === null && inFlight > 0) this.nextOpenAt = null;
    return null;
  }

  /** Every contact has a final outcome, with nothing left to start. */
  allDone(childrenStarting: number): boolean {
    const { carried } = this;
    return (
      carried.sourceExhausted &&
      this.page.length === 0 &&
      carried.retries.length === 0 &&
      carried.inFlight.length === 0 &&
      this.reported.length === 0 &&
      childrenStarting === 0
    );
  }

  /**
   * When the loop wakes on its own (epoch ms; Infinity: only a report or an Update wakes it). Due
   * retries wake it only when a slot is free; otherwise a child's report does.
   */
  wakeAt(heldUntil: number | null): number {
    const { carried } = this;
    const slotFree = carried.inFlight.length < this.settings.max_concurrency;
    if (carried.state !== 'running' || !slotFree) return Infinity;
    return Math.min(...carried.retries.map((item) => item.dueAt), heldUntil ?? Infinity);
  }

  /**
   * What the timer to `wakeAt` waits for, for the Temporal UI: the cause of the dials due then, or
   * the calling window that holds the queue.
   */
  wakeSummary(wakeAt: number, now: number): string {
    const due = this.carried.retries.filter((item) => item.dueAt === wakeAt);
    const cause = due[0]?.cause ?? 'window';
    const zone = windowZone(this.settings.schedule_config, due[0]?.timezone);
    const count = Math.max(1, due.filter((item) => item.cause === cause).length);
    return timerSummary({ cause, dueAt: wakeAt, zone, count }, now);
  }

  /** Whatever should make the loop look again. */
  shouldWake(): boolean {
    return this.changed || this.reported.length > 0 || this.closed;
  }

  /**
   * What the next run needs: a cursor and what is in flight or waiting, never contact lists. A
   * page fetched and not yet taken is fetched again after the cursor.
   */
  carryOver(): CampaignCarryOver {
    const { routeFailures, breakerSkips, ...carried } = this.carried;
    return {
      ...carried,
      settings: this.settings,
      sourceExhausted: carried.sourceExhausted && this.page.length === 0,
      ...(routeFailures > 0 ? { routeFailures } : {}),
      ...(breakerSkips.length > 0 ? { breakerSkips } : {}),
      ...(this.analyses.figures.analysed > 0 ? { analysis: this.analyses.figures } : {}),
      ...(this.analyses.awaitingRuns.length > 0 ? { awaitingAnalysis: [...this.analyses.awaitingRuns] } : {}),
    };
  }

  /** The retries still waiting were closed with their last outcome as final. */
  retriesClosed(counters: CampaignCounters, outcomes: Partial<Record<TerminalCallStatus, number>>): void {
    this.countersValue = counters;
    for (const [status, count] of Object.entries(outcomes) as [TerminalCallStatus, number][]) {
      this.outcomes[status] = (this.outcomes[status] ?? 0) + count;
    }
    this.carried.retries = [];
  }

  private freeSlots(dispatch: Dispatch): number {
    return this.settings.max_concurrency - this.carried.inFlight.length - dispatch.batch.length;
  }

  private linkOf(contactId: string, attempt: number): CampaignCallLink {
    return { parentWorkflowId: this.parentWorkflowId, campaignId: this.campaignId, contactId, attempt };
  }

  private inFlightIndex(contactId: string, attempt: number): number {
    return this.carried.inFlight.findIndex((entry) => entry.contactId === contactId && entry.attempt === attempt);
  }

  /** Removes a dial from those in flight; undefined when it is not (or no longer) in flight. */
  private takeInFlight(contactId: string, attempt: number): InFlight | undefined {
    const index = this.inFlightIndex(contactId, attempt);
    return index === -1 ? undefined : this.carried.inFlight.splice(index, 1)[0];
  }

  /** Whether an attempt was dialed through the configuration the campaign left (asked once per attempt). */
  private skipsBreaker(key: string): boolean {
    const index = this.carried.breakerSkips.indexOf(key);
    if (index === -1) return false;
    this.carried.breakerSkips.splice(index, 1);
    return true;
  }
}

function hold(dispatch: Dispatch, opens: number): void {
  dispatch.heldUntil = dispatch.heldUntil === null ? opens : Math.min(dispatch.heldUntil, opens);
}
