import type { ConversationResult, ConversationResume } from '../../agent-runtime/contract';
import { TERMINAL_CALL_STATUSES, type TransferStatus } from '../../telephony/provider';
import type { CallStatusUpdate, LiveResume, TerminalCallStatus, TransferStatusUpdate } from '../definitions';

/** How the call ended, as the provider reported it. */
export interface CallEnd {
  status: TerminalCallStatus;
  durationSeconds?: number;
}

const isTerminal = (status: CallStatusUpdate['status']): status is TerminalCallStatus =>
  TERMINAL_CALL_STATUSES.has(status);

/**
 * One call's state and what its signals change, with no Temporal calls in it: the provider's status
 * events, a live call's conversation, a campaign's request for a report. The workflow's phases read
 * it and wait on it; `now` is the workflow's clock, passed in.
 */
export class CallState {
  private end: CallEnd | undefined;
  private answeredAtMs: number | undefined;
  /** A machine answered (its greeting ended with the beep). */
  private machineAnswered = false;
  private providerCallId: string | undefined;
  /** Events that arrive before the dial returns the call's id: applied once it is known. */
  private readonly early: CallStatusUpdate[] = [];
  private conversationBegan = false;
  private liveConversation: ConversationResult | undefined;
  private reportAsked = false;
  /** Each transfer's status by its id: the first status past `ringing` wins. */
  private readonly transfers = new Map<string, TransferStatus>();
  /** A live call's conversation to carry on after a transfer that did not connect. */
  private resumeOffered: ConversationResume | null = null;
  /** The tool calls of transfers already carried out: a late repeat of their reports is ignored. */
  private transferSequenceDone = 0;
  private transferJoined = false;
  private resumeAwaited = false;

  /** A status event. The first terminal status wins; repeats, late events and other calls' events change nothing. */
  statusReported(update: CallStatusUpdate, now: number): void {
    if (this.end) return;
    if (this.providerCallId === undefined) {
      this.early.push(update);
      return;
    }
    if (update.providerCallId && update.providerCallId !== this.providerCallId) return;
    if (isTerminal(update.status)) this.end = { status: update.status, durationSeconds: update.durationSeconds };
    else if (update.status === 'answered') {
      this.answeredAtMs ??= now;
      if (update.answeredBy === 'machine') this.machineAnswered = true;
    }
  }

  /** A transfer event; events without the transfer's id are ignored. */
  transferStatusReported(update: TransferStatusUpdate): void {
    if (!update.transferId) return;
    const known = this.transfers.get(update.transferId);
    if (known !== undefined && known !== 'ringing') return;
    this.transfers.set(update.transferId, update.status);
  }

  /** The transfer's last reported status, if any. */
  transferStatus(transferId: string): TransferStatus | undefined {
    return this.transfers.get(transferId);
  }

  /** A live call's conversation began on its media stream. */
  conversationStarted(): void {
    this.conversationBegan = true;
  }

  /**
   * A live call's conversation ended; the first report counts. A conversation that stopped for a
   * transfer already carried out is reported again only by a retried signal: it is ignored.
   */
  conversationEnded(result: ConversationResult): void {
    if (result.endedBy === 'transfer' && (result.transfer?.sequence ?? 0) <= this.transferSequenceDone) return;
    this.conversationBegan = true;
    this.liveConversation ??= result;
  }

  /**
   * A live call's transfer did not connect: the conversation that stopped for it is over, and the
   * API process holding the stream carries it on from `resume` (it asks by query) and reports again.
   */
  conversationResumed(resume: ConversationResume): void {
    this.transferSequenceDone = resume.previous.transfer?.sequence ?? this.transferSequenceDone;
    this.resumeOffered = resume;
    this.liveConversation = undefined;
    this.conversationBegan = false;
    this.resumeAwaited = true;
  }

  /** A live conversation was carried on after a transfer, and has not begun again yet. */
  get awaitingResume(): boolean {
    return this.resumeAwaited && !this.conversationBegan;
  }

  /** The person a transfer rang took the caller: no conversation will carry on. */
  transferConnected(): void {
    this.transferJoined = true;
  }

  /** What the API process holding a live call's stream asks after the conversation stopped for a transfer. */
  get liveResume(): LiveResume {
    return { over: this.ended || this.transferJoined, resume: this.resumeOffered, awaiting: this.awaitingResume };
  }

  /** Its campaign, about to continue as new, asked to be told the outcome by signal. */
  reportRequested(): void {
    this.reportAsked = true;
  }

  /** The dial returned the call's id: the events that came before it apply now. */
  placed(providerCallId: string, now: number): void {
    this.providerCallId = providerCallId;
    this.early.splice(0).forEach((update) => this.statusReported(update, now));
  }

  /** An inbound call: the provider rang us, and the inbound webhook's reply answered it. */
  answeredInbound(providerCallId: string, now: number): void {
    this.answeredAtMs = now;
    this.placed(providerCallId, now);
  }

  /** The ring timeout passed and the call was hung up: our own hang-up, reported as canceled, means nobody answered. */
  rangOut(): void {
    if (this.answeredAtMs === undefined && (this.end === undefined || this.end.status === 'canceled')) {
      this.end = { status: 'no-answer', durationSeconds: 0 };
    }
  }

  /** The provider's id of the call, once placed. */
  get callId(): string {
    if (this.providerCallId === undefined) throw new Error('the call is followed before it was placed');
    return this.providerCallId;
  }

  get answered(): boolean {
    return this.answeredAtMs !== undefined;
  }

  /** When the call was answered (workflow time). */
  get answeredAt(): number | undefined {
    return this.answeredAtMs;
  }

  get machine(): boolean {
    return this.machineAnswered;
  }

  /** The provider reported a terminal status. */
  get ended(): boolean {
    return this.end !== undefined;
  }

  get final(): CallEnd | undefined {
    return this.end;
  }

  /** Someone (or something) is on the line: answered, or completed before the answer was heard of. */
  get connected(): boolean {
    return this.answered || this.end?.status === 'completed';
  }

  /** A live call's conversation, once reported. */
  get conversation(): ConversationResult | undefined {
    return this.liveConversation;
  }

  /** A live call's conversation began and has not been reported yet. */
  get conversationUnderWay(): boolean {
    return this.conversationBegan && this.liveConversation === undefined;
  }

  get campaignAskedForReport(): boolean {
    return this.reportAsked;
  }
}
