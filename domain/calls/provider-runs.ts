import type { DataSource } from 'typeorm';
import type { PhoneNumber, Run, TelephonyConfiguration } from '../../entities';
import {
  createPhoneNumberRepository,
  type PhoneNumberRepository,
} from '../../entities/repositories/phone-number.repository';
import {
  createRunRepository,
  type RunRepository,
  type WebhookTarget,
} from '../../entities/repositories/run.repository';
import {
  createTelephonyConfigurationRepository,
  type TelephonyConfigurationRepository,
} from '../../entities/repositories/telephony-configuration.repository';

export type { WebhookTarget };

/**
 * The runs a provider's requests name (answer URLs, status and transfer webhooks), with the
 * configuration whose credentials check the request's signature. Callers turn a miss into their
 * answer: 404 for an answer URL, a logged 200 for a webhook.
 */
export class ProviderRuns {
  private readonly runs: RunRepository;
  private readonly configurations: TelephonyConfigurationRepository;
  private readonly numbers: PhoneNumberRepository;

  constructor(dataSource: DataSource) {
    this.runs = createRunRepository(dataSource);
    this.configurations = createTelephonyConfigurationRepository(dataSource);
    this.numbers = createPhoneNumberRepository(dataSource);
  }

  /** The run with that id on that provider and its configuration; null when either is missing. */
  async withConfiguration(
    provider: string,
    runId: number,
  ): Promise<{ run: Run; configuration: TelephonyConfiguration } | null> {
    const run = await this.runs.findOfProvider(provider, runId);
    const configuration = run?.telephonyConfigurationId
      ? await this.configurations.findById(run.telephonyConfigurationId)
      : null;
    return run && configuration ? { run, configuration } : null;
  }

  /** The run of the provider's call with that id; null when none is. */
  byProviderCall(provider: string, providerCallId: string): Promise<Run | null> {
    return this.runs.findByProviderCall(provider, providerCallId);
  }

  /** The run a status or transfer webhook names, with its configuration: one statement. */
  webhookTarget(runId: number, provider: string): Promise<WebhookTarget | null> {
    return this.runs.webhookTarget(runId, provider);
  }

  /** The organization's number at that address and its configuration when that is a simulator's; null otherwise. */
  async simulatorNumber(
    organizationId: number,
    addressNormalized: string,
  ): Promise<{ number: PhoneNumber; configuration: TelephonyConfiguration } | null> {
    const number = await this.numbers.findByAddress(organizationId, addressNormalized);
    const configuration = number ? await this.configurations.findById(number.telephonyConfigurationId) : null;
    return number && configuration?.provider === 'simulator' ? { number, configuration } : null;
  }
}
