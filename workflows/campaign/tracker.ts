import type {
  AttemptOutcome,
  CampaignCounters,
  ContactRef,
  OpenedCampaign,
} from '../../activities/campaign.activities';
import type { ScreenedDial } from '../../activities/dial-rules.activities';
import {
  campaignAttemptKey,
  isTerminalCampaignState,
  type CampaignCallLink,
  type CampaignCallResult,
  type CampaignCarryOver,
  type CampaignProgress,
  type CampaignSettings,
  type CampaignState,
  type TerminalCallStatus,
  type WaitCause,
} from '../definitions';
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

interface InFlight {
  link: CampaignCallLink;
  timezone: string | null;
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
  state: CampaignState;
  counters: CampaignCounters | undefined;
  outcomes: Partial<Record<TerminalCallStatus, number>> = {};
  /** The opening the campaign waits for (logged once per wait). */
  nextOpenAt: number | null = null;
  /** Something a handler did that the loop must look at. */
  changed = false;
  /** Contacts with id <= cursor have been taken from the source once. */
  private cursor: string;
  /** The last contact id fetched: the next page starts after it. */
  fetchedUpTo: string;
  private sourceExhausted: boolean;
  private readonly page: ContactRef[] = [];
  private readonly inFlight: Map<string, InFlight>;
  private waiting: Waiting[];
  private breakerWindow: BreakerEntry[];
  private readonly reported: Reported[] = [];
  /** Batches in a row that could not be dialed at all (carried over: a failing campaign keeps counting). */
  private routeFailures: number;
  private settingsValue: CampaignSettings | undefined;
  private failover = { available: false, active: false };
  /** Dials placed through the configuration the campaign left: their outcomes do not judge the fallback. */
  private readonly breakerSkips: Set<string>;

  constructor(
    readonly campaignId: number,
    private readonly parentWorkflowId: string,
    carry?: CampaignCarryOver,
  ) {
    this.state = carry?.state ?? 'running';
    this.settingsValue = carry?.settings;
    this.cursor = carry?.contactCursor ?? '0';
    this.fetchedUpTo = this.cursor;
    this.sourceExhausted = carry?.sourceExhausted ?? false;
    this.inFlight = new Map(
      (carry?.inFlight ?? []).map(({ timezone, ...link }) => [
        campaignAttemptKey(link.contactId, link.attempt),
        { link, timezone: timezone ?? null },
      ]),
    );
    this.waiting = [...(carry?.retries ?? [])];
    this.breakerWindow = [...(carry?.breakerWindow ?? [])];
    this.routeFailures = carry?.routeFailures ?? 0;
    this.breakerSkips = new Set(carry?.breakerSkips ?? []);
  }

  get closed(): boolean {
    return isTerminalCampaignState(this.state);
  }

  get settings(): CampaignSettings {
    if (!this.settingsValue) throw new Error('campaign settings are read before the campaign was opened');
    return this.settingsValue;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get hasReports(): boolean {
    return this.reported.length > 0;
  }

  get hasWaiting(): boolean {
    return this.waiting.length > 0;
  }

  setState(next: CampaignState): void {
    this.state = next;
    this.changed = true;
  }

  /** What the database holds: settings carried over win; only an ended campaign overrides the state. */
  open(campaign: OpenedCampaign): void {
    this.settingsValue ??= campaign.settings;
    this.counters = campaign.counters;
    this.outcomes = campaign.outcomes;
    this.failover = campaign.failover;
    if (isTerminalCampaignState(campaign.state)) this.state = campaign.state;
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
    this.breakerWindow = [];
    for (const key of this.inFlight.keys()) this.breakerSkips.add(key);
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
    this.settingsValue = { ...this.settings, ...change };
    this.changed = true;
  }

  /** Resume starts a new breaker window and a new wait for the schedule. */
  resume(): void {
    this.breakerWindow = [];
    this.nextOpenAt = null;
  }

  /** A call's report; only the dial in flight counts: a repeated or late report changes nothing. */
  receive(result: Reported): void {
    const key = campaignAttemptKey(result.contactId, result.attempt);
    const entry = this.inFlight.get(key);
    if (!entry) return;
    this.inFlight.delete(key);
    this.reported.push({ ...result, timezone: entry.timezone });
  }

  progress(): CampaignProgress {
    const counters = this.counters;
    return {
      campaignId: this.campaignId,
      state: this.state,
      total_rows: counters?.total_rows ?? 0,
      total_queued_count: counters?.total_queued_count ?? 0,
      executed_count: counters?.executed_count ?? 0,
      processed_rows: counters?.processed_rows ?? 0,
      failed_rows: counters?.failed_rows ?? 0,
      dnc_skipped: counters?.dnc_skipped ?? 0,
      frequency_capped: counters?.frequency_capped ?? 0,
      in_flight: this.inFlight.size,
      pending_retries: this.waiting.length,
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
    this.counters = counters;
    records.forEach((record, index) => {
      if (record.final) this.outcomes[record.outcome] = (this.outcomes[record.outcome] ?? 0) + 1;
      else if (record.retryAt !== undefined) {
        const timezone = batch[index]?.timezone;
        this.waiting.push({
          contactId: record.contactId,
          attempt: record.attempt + 1,
          dueAt: record.retryAt,
          timezone,
          cause: record.outcome,
        });
      }
    });
    // The breaker sees outcomes while running only; resume starts a new window.
    if (this.state !== 'running') return null;
    const breaker = this.settings.circuit_breaker;
    const judged = records.filter(
      (record) => !this.breakerSkips.delete(campaignAttemptKey(record.contactId, record.attempt)),
    );
    this.breakerWindow = withinWindow(
      [...this.breakerWindow, ...judged.map((record) => ({ at: now, failed: isBreakerFailure(record.outcome) }))],
      breaker,
      now,
    );
    return breakerTrip(this.breakerWindow, breaker, now);
  }

  /** Starts a dispatch at `now`: the due retries that fit and may be dialed now. */
  beginDispatch(now: number): Dispatch {
    const dispatch: Dispatch = { now, batch: [], heldUntil: null };
    const { schedule_config: schedule } = this.settings;
    const due = this.waiting.filter((item) => item.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
    this.waiting = this.waiting.filter((item) => item.dueAt > now);
    for (const item of due) {
      const opens = nextOpening(schedule, item.timezone, now);
      if (this.freeSlots(dispatch) <= 0) this.waiting.push(item);
      else if (opens > now) {
        hold(dispatch, opens);
        this.waiting.push({ ...item, dueAt: opens, cause: 'window' });
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
    while (this.freeSlots(dispatch) > 0) {
      const next = this.page[0];
      if (!next) return !this.sourceExhausted && this.waiting.length < MAX_WAITING;
      const opens = nextOpening(schedule, next.timezone, now);
      if (opens > now && !next.timezone) {
        hold(dispatch, opens);
        return false;
      }
      this.page.shift();
      this.cursor = next.contactId;
      const item = { contactId: next.contactId, attempt: 1, timezone: next.timezone };
      if (opens > now) {
        hold(dispatch, opens);
        this.waiting.push({ ...item, dueAt: opens, cause: 'window' });
      } else dispatch.batch.push({ ...item, dueAt: now });
    }
    return false;
  }

  /** A fetched page of contacts; a short page means the source is exhausted. */
  addPage(contacts: ContactRef[]): void {
    this.page.push(...contacts);
    const last = contacts.at(-1);
    if (last) this.fetchedUpTo = last.contactId;
    if (contacts.length < PAGE_SIZE) this.sourceExhausted = true;
  }

  /** The dispatch's dials are in flight from now on. */
  launch(dispatch: Dispatch): void {
    for (const { contactId, attempt, timezone } of dispatch.batch) {
      const link = { parentWorkflowId: this.parentWorkflowId, campaignId: this.campaignId, contactId, attempt };
      this.inFlight.set(campaignAttemptKey(contactId, attempt), { link, timezone: timezone ?? null });
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
      const key = campaignAttemptKey(dial.contactId, dial.attempt);
      const entry = this.inFlight.get(key);
      if (!entry) continue;
      held.add(key);
      this.inFlight.delete(key);
      if (dial.verdict === 'capped') {
        const { timezone } = entry;
        const dueAt = nextOpening(this.settings.schedule_config, timezone, dial.allowedAt);
        this.waiting.push({
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
    return this.inFlight.get(campaignAttemptKey(contactId, attempt))?.link;
  }

  /** The batch was routed: a failing streak ends. */
  routed(): void {
    this.routeFailures = 0;
  }

  /**
   * Nothing can be dialed (no usable configuration or agent version): the batch goes back to wait,
   * so no contact is spent on it, and is tried again after `ROUTE_RETRY_MS`.
   */
  holdUnroutable(dispatch: Dispatch, now: number): Unroutable {
    this.routeFailures += 1;
    for (const item of dispatch.batch) {
      this.inFlight.delete(campaignAttemptKey(item.contactId, item.attempt));
      this.waiting.push({ ...item, dueAt: now + ROUTE_RETRY_MS, cause: 'unroutable' });
    }
    return { consecutiveFailures: this.routeFailures, fails: this.routeFailures >= ROUTE_FAILURES_TO_FAIL };
  }

  /**
   * After a dispatch: the window opening to announce, when the campaign has nothing in flight and
   * waits for a new one; a wait ends once calls are in flight again.
   */
  windowToAnnounce(heldUntil: number | null): number | null {
    if (heldUntil !== null && this.inFlight.size === 0 && heldUntil !== this.nextOpenAt) {
      this.nextOpenAt = heldUntil;
      return heldUntil;
    }
    if (heldUntil === null && this.inFlight.size > 0) this.nextOpenAt = null;
    return null;
  }

  /** Every contact has a final outcome, with nothing left to start. */
  allDone(childrenStarting: number): boolean {
    return (
      this.sourceExhausted &&
      this.page.length === 0 &&
      this.waiting.length === 0 &&
      this.inFlight.size === 0 &&
      this.reported.length === 0 &&
      childrenStarting === 0
    );
  }

  /**
   * When the loop wakes on its own (epoch ms; Infinity: only a report or an Update wakes it). Due
   * retries wake it only when a slot is free; otherwise a child's report does.
   */
  wakeAt(heldUntil: number | null): number {
    const slotFree = this.inFlight.size < this.settings.max_concurrency;
    if (this.state !== 'running' || !slotFree) return Infinity;
    return Math.min(...this.waiting.map((item) => item.dueAt), heldUntil ?? Infinity);
  }

  /**
   * What the timer to `wakeAt` waits for, for the Temporal UI: the cause of the dials due then, or
   * the calling window that holds the queue.
   */
  wakeSummary(wakeAt: number, now: number): string {
    const due = this.waiting.filter((item) => item.dueAt === wakeAt);
    const cause = due[0]?.cause ?? 'window';
    const zone = windowZone(this.settings.schedule_config, due[0]?.timezone);
    const count = Math.max(1, due.filter((item) => item.cause === cause).length);
    return timerSummary({ cause, dueAt: wakeAt, zone, count }, now);
  }

  /** Whatever should make the loop look again. */
  shouldWake(): boolean {
    return this.changed || this.reported.length > 0 || this.closed;
  }

  /** What the next run needs: a cursor and what is in flight or waiting, never contact lists. */
  carryOver(): CampaignCarryOver {
    return {
      contactCursor: this.cursor,
      state: this.state,
      settings: this.settings,
      inFlight: [...this.inFlight.values()].map(({ link, timezone }) => ({ ...link, timezone })),
      retries: this.waiting,
      breakerWindow: this.breakerWindow,
      sourceExhausted: this.sourceExhausted && this.page.length === 0,
      ...(this.routeFailures > 0 ? { routeFailures: this.routeFailures } : {}),
      ...(this.breakerSkips.size > 0 ? { breakerSkips: [...this.breakerSkips] } : {}),
    };
  }

  /** The retries still waiting were closed with their last outcome as final. */
  retriesClosed(counters: CampaignCounters, outcomes: Partial<Record<TerminalCallStatus, number>>): void {
    this.counters = counters;
    for (const [status, count] of Object.entries(outcomes) as [TerminalCallStatus, number][]) {
      this.outcomes[status] = (this.outcomes[status] ?? 0) + count;
    }
    this.waiting = [];
  }

  private freeSlots(dispatch: Dispatch): number {
    return this.settings.max_concurrency - this.inFlight.size - dispatch.batch.length;
  }
}

function hold(dispatch: Dispatch, opens: number): void {
  dispatch.heldUntil = dispatch.heldUntil === null ? opens : Math.min(dispatch.heldUntil, opens);
}
