import type { Logger } from '../../../platform/logger';
import type { CallStatus, StatusEvent, TransferStatus } from '../../provider';
import type { AriClient } from './client';
import type { AriTransferBridge } from './transfer-bridge';

/** How a destination channel destroyed before it answered ended (status.ts classifies the cause). */
const UNANSWERED: Partial<Record<CallStatus, TransferStatus>> = {
  busy: 'busy',
  'no-answer': 'no-answer',
  canceled: 'canceled',
};

/** The run a transfer channel belongs to, as the events need it. */
export interface TransferRun {
  id: number;
  isCompleted: boolean;
  /** The caller's channel. */
  providerCallId: string | null;
}

/**
 * What a configuration's transfer channel events do: an answered destination joins the caller,
 * one that never answered gives the caller back to the agent; either is the transfer status to
 * signal. A joined call ends with either side: when the person hangs up the caller is hung up, and
 * when the caller hangs up (`callerGone`) so is the person.
 */
export class AriTransferEvents {
  /** Joined destination channels by run, to hang up with their caller. */
  private readonly joined = new Map<number, string>();

  constructor(
    private readonly transfers: AriTransferBridge,
    private readonly client: AriClient,
    private readonly log: Logger,
  ) {}

  /** The transfer status this event means for the workflow, if any. */
  async channelEvent(run: TransferRun, event: StatusEvent): Promise<TransferStatus | undefined> {
    const channelId = event.providerCallId ?? '';
    const context = { runId: run.id, channel: channelId };
    if (event.raw.type === 'StasisStart') {
      if (run.isCompleted) {
        await this.quietly(context, 'hang up a destination whose call is over', () => this.client.hangup(channelId));
        return undefined;
      }
      const joined = await this.quietly(context, 'join the destination', () => this.transfers.join(run.id, channelId));
      if (!joined) return undefined;
      this.joined.set(run.id, channelId);
      this.log.info(context, 'ARI transfer answered: caller and destination bridged');
      return 'answered';
    }
    if (event.raw.type !== 'ChannelDestroyed') return undefined;
    if (event.status === 'completed') {
      // The person hung up after the join: the caller, alone in the bridge, is hung up too.
      this.joined.delete(run.id);
      const caller = run.providerCallId;
      if (caller) await this.quietly(context, 'hang up the caller', () => this.client.hangup(caller));
      return undefined;
    }
    await this.quietly(context, 'give the caller back to the agent', () => this.transfers.restore(run.id, channelId));
    const status = UNANSWERED[event.status] ?? 'failed';
    this.log.info(
      { ...context, status, cause: event.raw.cause },
      'ARI transfer not answered: caller back with the agent',
    );
    return status;
  }

  /** The caller hung up: a destination joined with them is hung up too. */
  async callerGone(runId: number): Promise<void> {
    const channelId = this.joined.get(runId);
    if (!channelId) return;
    this.joined.delete(runId);
    await this.quietly({ runId, channel: channelId }, 'hang up the destination', () => this.client.hangup(channelId));
  }

  /** Runs one step; a failure is logged (the workflow's look-ups and ring timeout still settle the call). */
  private async quietly(context: Record<string, unknown>, what: string, step: () => Promise<void>): Promise<boolean> {
    try {
      await step();
      return true;
    } catch (error) {
      this.log.error({ ...context, error: String(error) }, `ARI transfer: could not ${what}`);
      return false;
    }
  }
}
