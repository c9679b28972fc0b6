import type { DataSource } from 'typeorm';
import type { Run } from '../../../entities';
import { createRunRepository, type RunRepository } from '../../../entities/repositories/run.repository';

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

  private readonly runs: RunRepository;

  constructor(
    dataSource: DataSource,
    private readonly configurationId: number,
  ) {
    this.runs = createRunRepository(dataSource);
  }

  /** The run of a channel: remembered, else the run that stored it as its call id, else StasisStart's `run_id` arg. */
  async runOf(channelId: string, raw: Record<string, unknown>): Promise<Run | null> {
    const mine = this.configurationId;
    const known = this.runOfChannel.get(channelId);
    const named = raw.type === 'StasisStart' ? runIdOfArgs(raw) : undefined;
    const run =
      (known === undefined ? null : await this.runs.findOfConfiguration(mine, known)) ??
      (await this.runs.findByCallOfConfiguration(mine, channelId)) ??
      (named === undefined ? null : await this.runs.findOfConfiguration(mine, named));
    if (run) this.runOfChannel.set(channelId, run.id);
    return run;
  }

  /** The channel is gone: its events are over. */
  forget(channelId: string): void {
    this.runOfChannel.delete(channelId);
  }
}
