import type { DataSource } from 'typeorm';
import { Run } from '../../../entities';

/** `appArgs` of our originate: `run_id=<id>` (client.ts). */
const RUN_ID_ARG = /^run_id=(\d+)$/;

function runIdOfArgs(event: Record<string, unknown>): number | undefined {
  const args = Array.isArray(event.args) ? event.args : [];
  for (const arg of args) {
    const match = typeof arg === 'string' ? RUN_ID_ARG.exec(arg) : null;
    if (match?.[1]) return Number(match[1]);
  }
  return undefined;
}

/** The runs of one ARI configuration's channels, remembered once found. */
export class ChannelRuns {
  /** Channels already tied to a run (by StasisStart args or the run's provider_call_id). */
  private readonly runOfChannel = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly configurationId: number,
  ) {}

  /** The run of a channel: remembered, else the run that stored it as its call id, else StasisStart's `run_id` arg. */
  async runOf(channelId: string, raw: Record<string, unknown>): Promise<Run | null> {
    const runs = this.dataSource.getRepository(Run);
    const mine = { telephonyConfigurationId: this.configurationId };
    const known = this.runOfChannel.get(channelId);
    const named = raw.type === 'StasisStart' ? runIdOfArgs(raw) : undefined;
    const run =
      (known === undefined ? null : await runs.findOneBy({ id: known, ...mine })) ??
      (await runs.findOneBy({ providerCallId: channelId, ...mine })) ??
      (named === undefined ? null : await runs.findOneBy({ id: named, ...mine }));
    if (run) this.runOfChannel.set(channelId, run.id);
    return run;
  }

  /** The channel is gone: its events are over. */
  forget(channelId: string): void {
    this.runOfChannel.delete(channelId);
  }
}
