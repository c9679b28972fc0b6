import type { DataSource } from 'typeorm';
import type { Run, TelephonyConfiguration } from '../../../entities';
import { createRunRepository, type RunRepository } from '../../../entities/repositories/run.repository';
import type { Logger } from '../../../platform/logger';
import { signMediaToken } from '../../../voice/media-token';
import type { StatusEvent, TransferStatus } from '../../provider';
import { ChannelRuns } from './channel-runs';
import { runIdOfMediaChannel } from './media-bridge';
import type { AriMediaEvents } from './media-events';
import { runIdOfTransferChannel } from './transfer-bridge';
import type { AriTransferEvents } from './transfer-events';

/** A channel entered our Stasis app without naming a run: an inbound call. */
export interface AriInboundCall {
  configuration: TelephonyConfiguration;
  channelId: string;
  /** The StasisStart event as Asterisk sent it (caller, dialplan, args). */
  event: Record<string, unknown>;
}

/** A call's status for its run's call workflow; false when that workflow has already closed. */
export type SignalCallStatus = (run: Run, status: Omit<StatusEvent, 'raw'>) => Promise<boolean>;

/** A transfer's status for its run's call workflow; false when that workflow has already closed. */
export type SignalTransferStatus = (
  run: Run,
  update: { status: TransferStatus; transferId: string },
) => Promise<boolean>;

export interface AriCallEventsDeps {
  dataSource: DataSource;
  signalCallStatus: SignalCallStatus;
  /** Transfer events (the destination answered, or did not); without it they are logged only. */
  signalTransferStatus?: SignalTransferStatus;
  /** Inbound calls (StasisStart of a channel no run knows); without it they are logged and left alone. */
  onInboundCall?: (call: AriInboundCall) => Promise<void>;
}

/**
 * One configuration's channel events, one at a time: each is tied to its run (an unknown channel
 * entering Stasis is an inbound call), bridges or tears down the call's audio, and is signalled to
 * the run's call workflow. The workflow ignores repeats, so duplicates (several workers,
 * reconnects) are harmless; media ids are the run's, so duplicates there create nothing twice.
 */
export class AriCallEvents {
  private readonly runs: ChannelRuns;
  private readonly runRepository: RunRepository;

  constructor(
    private readonly configuration: TelephonyConfiguration,
    private readonly media: AriMediaEvents,
    private readonly transfers: AriTransferEvents,
    private readonly mediaKey: Buffer,
    private readonly log: Logger,
    private readonly deps: AriCallEventsDeps,
  ) {
    this.runs = new ChannelRuns(deps.dataSource, configuration.id);
    this.runRepository = createRunRepository(deps.dataSource);
  }

  async handle(event: StatusEvent): Promise<void> {
    const channelId = event.providerCallId;
    if (!channelId) return;
    const mediaRunId = runIdOfMediaChannel(channelId);
    // Our external media channels enter the Stasis app too: they are neither inbound calls nor call events.
    if (mediaRunId !== undefined) return this.media.mediaChannelEvent(mediaRunId, event);
    const transferRunId = runIdOfTransferChannel(channelId);
    if (transferRunId !== undefined) return this.transferEvent(transferRunId, channelId, event);
    let run = await this.runs.runOf(channelId, event.raw);
    if (!run && event.raw.type === 'StasisStart') {
      // An inbound call: the handler creates its run (provider_call_id = the channel), which then gets this event too.
      await this.inbound(channelId, event.raw);
      run = await this.runs.runOf(channelId, event.raw);
    }
    if (!run) {
      this.log.debug({ channel: channelId, type: event.raw.type }, 'ARI event for no known run: ignored');
      return;
    }
    if (event.raw.type === 'ChannelDestroyed') {
      this.runs.forget(channelId);
      if (event.status === 'completed') await this.transfers.callerGone(run.id);
    }
    // Before the signal, so a Temporal outage does not leave a call without audio or a bridge behind.
    const runId = run.id;
    await this.media.callChannelEvent(run, channelId, event, () =>
      signMediaToken(this.mediaKey, { provider: 'ari', runId }),
    );
    if (run.isCompleted) return;
    const signalled = await this.deps.signalCallStatus(run, {
      status: event.status,
      providerCallId: channelId,
      durationSeconds: event.durationSeconds,
    });
    if (!signalled) this.log.info({ runId: run.id }, 'ARI event for a closed call workflow: ignored');
  }

  /** A transfer destination's channel: joined or given up, then signalled as the transfer's status. */
  private async transferEvent(runId: number, channelId: string, event: StatusEvent): Promise<void> {
    const run = await this.runRepository.findOfConfiguration(this.configuration.id, runId);
    if (!run) {
      this.log.debug({ channel: channelId, type: event.raw.type }, 'ARI transfer event for no known run: ignored');
      return;
    }
    const status = await this.transfers.channelEvent(run, event);
    if (!status || run.isCompleted || !this.deps.signalTransferStatus) return;
    const signalled = await this.deps.signalTransferStatus(run, { status, transferId: channelId });
    if (!signalled) this.log.info({ runId }, 'ARI transfer event for a closed call workflow: ignored');
  }

  private async inbound(channelId: string, event: Record<string, unknown>): Promise<void> {
    if (!this.deps.onInboundCall) {
      this.log.warn({ channel: channelId }, 'inbound ARI call: no inbound handler in this worker, left alone');
      return;
    }
    await this.deps.onInboundCall({ configuration: this.configuration, channelId, event });
  }
}
