import type { Logger } from '../../../platform/logger';
import type { StatusEvent } from '../../provider';
import type { AriMediaBridge } from './media-bridge';

/**
 * What a configuration's channel events do to the calls' audio: an answered call channel is bridged
 * to the media endpoint, a finished one torn down; our external media channels report joining or
 * why they ended. Failures are logged; a call goes on without audio.
 */
export class AriMediaEvents {
  constructor(
    private readonly media: AriMediaBridge,
    private readonly log: Logger,
  ) {}

  /**
   * An answered call channel of a call not yet over entered Stasis: bridge it to the media endpoint
   * with a fresh `token`. The call channel is gone: tear the bridge down.
   */
  async callChannelEvent(
    run: { id: number; isCompleted: boolean },
    channelId: string,
    event: StatusEvent,
    token: () => string,
  ): Promise<void> {
    const context = { runId: run.id, channel: channelId };
    if (event.raw.type === 'StasisStart' && !run.isCompleted) {
      try {
        const outcome = await this.media.connect(run.id, channelId, token());
        this.log.info({ ...context, outcome }, 'ARI call bridged; external media channel dialing the media endpoint');
      } catch (error) {
        this.log.error({ ...context, error: String(error) }, 'ARI call could not be bridged to the media endpoint');
      }
    } else if (event.raw.type === 'ChannelDestroyed' && event.status === 'completed') {
      // Only answered calls were bridged; a call that never answered has nothing to tear down.
      await this.tearDown(run.id, 'the call hung up');
    }
  }

  /** Events of an external media channel: joining the bridge once connected, or why it ended. */
  async mediaChannelEvent(runId: number, event: StatusEvent): Promise<void> {
    const context = { runId, channel: event.providerCallId };
    if (event.raw.type === 'StasisStart') {
      try {
        const outcome = await this.media.join(runId);
        this.log.info({ ...context, outcome }, 'ARI external media channel connected');
      } catch (error) {
        this.log.error({ ...context, error: String(error) }, 'ARI external media channel could not join its bridge');
      }
    } else if (event.raw.type === 'ChannelDestroyed') {
      // Never answered: Asterisk could not reach the media endpoint, or the endpoint refused it (a bad token).
      const connected = event.status === 'completed';
      const cause = event.raw.cause;
      if (connected) this.log.info(context, 'ARI external media channel ended');
      else this.log.warn({ ...context, cause }, 'ARI external media channel never connected to the media endpoint');
    }
  }

  /** External media channels whose call ended while no listener ran (docs/guides/asterisk.md). */
  async tearDownStranded(): Promise<void> {
    for (const runId of await this.media.strandedRuns()) await this.tearDown(runId, 'its call ended while unobserved');
  }

  private async tearDown(runId: number, reason: string): Promise<void> {
    try {
      await this.media.tearDown(runId);
      this.log.info({ runId, reason }, 'ARI media bridge torn down');
    } catch (error) {
      this.log.error({ runId, reason, error: String(error) }, 'ARI media bridge could not be torn down');
    }
  }
}
