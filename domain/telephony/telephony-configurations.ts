import type { DataSource } from 'typeorm';
import type { TelephonyConfiguration } from '../../entities';
import { isUniqueViolation } from '../../entities/db-errors';
import {
  createTelephonyConfigurationRepository,
  type TelephonyConfigurationRepository,
} from '../../entities/repositories/telephony-configuration.repository';
import { mergeUpdate, openCredentials, sealCredentials, secretsFollowingNewAddress } from '../../telephony/credentials';
import type { Actor } from '../actor';
import { ConflictError, InvalidError, NotFoundError, ValidationError } from '../errors';
import type { Quotas } from '../quotas';
import { toValidationIssues } from '../validation-issues';
import type { ConfigurationView, TelephonyServices } from './telephony-services';

export const CONFIGURATION_NOT_FOUND = 'Telephony configuration not found';
const NAME_CONSTRAINT = 'telephony_configurations_organization_id_name_key';

export interface NewTelephonyConfiguration {
  name: string;
  is_default_outbound: boolean;
  calls_per_second?: number | null;
  /** `provider` and the provider's configuration fields, already checked against its schema. */
  config: { provider: string } & Record<string, unknown>;
}

/** A PUT: fields not sent keep their value; `config` holds `provider` (unchanged) and the fields that change. */
export interface TelephonyConfigurationChanges {
  name?: string;
  calls_per_second?: number | null;
  config?: { provider: string } & Record<string, unknown>;
}

const duplicateName = (name: string) =>
  new ConflictError(
    `A telephony configuration named '${name}' already exists in this organization. Pick a different name.`,
  );

/**
 * The organization's telephony configurations: credentials sealed at rest and answered masked, one
 * default for outbound calls, a quota on how many, and no delete while a campaign uses one.
 */
export class TelephonyConfigurations {
  private readonly configurations: TelephonyConfigurationRepository;

  constructor(
    dataSource: DataSource,
    private readonly telephony: TelephonyServices,
    private readonly quotas: Quotas,
  ) {
    this.configurations = createTelephonyConfigurationRepository(dataSource);
  }

  /** Oldest first. */
  async list(caller: Actor): Promise<ConfigurationView[]> {
    const rows = await this.configurations.listOf(caller.organizationId);
    return rows.map((row) => this.telephony.configurationView(row));
  }

  /** The caller's configuration; 404 when it is unknown or another organization's. */
  async find(caller: Actor, id: number): Promise<TelephonyConfiguration> {
    const row = await this.configurations.findOwned(caller.organizationId, id);
    if (!row) throw new NotFoundError(CONFIGURATION_NOT_FOUND);
    return row;
  }

  async view(caller: Actor, id: number): Promise<ConfigurationView> {
    return this.telephony.configurationView(await this.find(caller, id));
  }

  /** A default outbound configuration replaces the previous default in the same transaction. */
  async create(caller: Actor, input: NewTelephonyConfiguration): Promise<ConfigurationView> {
    const { provider, ...fields } = input.config;
    const definition = this.telephony.definitionOf({ provider });
    const row = this.configurations.build({
      organizationId: caller.organizationId,
      name: input.name,
      provider,
      credentials: sealCredentials(
        definition,
        { ...fields, ...definition.serverManaged?.(null) },
        this.telephony.secrets,
      ),
      isDefaultOutbound: input.is_default_outbound,
      callsPerSecond: input.calls_per_second ?? null,
    });
    const saved = await this.savingNamed(row, () =>
      this.configurations.transaction(async (configurations, manager) => {
        if (row.isDefaultOutbound) await configurations.clearDefaultOutbound(caller.organizationId);
        const inserted = await configurations.save(row);
        await this.quotas.claim(manager, 'telephony_configurations', caller.organizationId);
        return inserted;
      }),
    );
    return this.telephony.configurationView(saved);
  }

  /**
   * Credentials merge into the stored ones (a masked secret sent back keeps the stored one); a change
   * of where secrets are sent needs every secret again; the provider cannot change.
   */
  async update(caller: Actor, id: number, changes: TelephonyConfigurationChanges): Promise<ConfigurationView> {
    const row = await this.find(caller, id);
    if (changes.config) {
      const { provider, ...update } = changes.config;
      if (provider !== row.provider) {
        throw new InvalidError('Provider cannot be changed; create a new configuration instead.');
      }
      const definition = this.telephony.definitionOf(row);
      const current = openCredentials(row.credentials, this.telephony.secrets);
      const following = secretsFollowingNewAddress(definition, current, update);
      if (following) {
        throw new ValidationError(
          following.keptSecrets.map((name) => ({
            loc: ['body', 'config', name],
            msg: `${following.changedField} changes, so ${name} must be sent again: a stored secret is never sent to a new address`,
            type: 'secret_required',
          })),
        );
      }
      const parsed = definition.configSchema.safeParse({
        ...mergeUpdate(definition, current, update),
        ...definition.serverManaged?.(current),
      });
      if (!parsed.success) {
        throw new ValidationError(
          toValidationIssues(parsed.error, 'body').map((issue) => ({
            ...issue,
            loc: ['body', 'config', ...issue.loc.slice(1)],
          })),
        );
      }
      row.credentials = sealCredentials(definition, parsed.data, this.telephony.secrets);
    }
    if (changes.name !== undefined) row.name = changes.name;
    if (changes.calls_per_second !== undefined) row.callsPerSecond = changes.calls_per_second;
    return this.telephony.configurationView(await this.savingNamed(row, () => this.configurations.save(row)));
  }

  /** Refused (409) while a campaign references it; its phone numbers go with it. */
  async delete(caller: Actor, id: number): Promise<void> {
    const row = await this.find(caller, id);
    if (await this.configurations.isUsedByCampaign(row.id)) {
      throw new ConflictError(
        `Telephony configuration ${row.id} is referenced by one or more campaigns and cannot be deleted.`,
      );
    }
    await this.configurations.delete(row.id);
  }

  /** The previous default is cleared in the same transaction. */
  async setDefaultOutbound(caller: Actor, id: number): Promise<ConfigurationView> {
    const row = await this.find(caller, id);
    const updated = await this.configurations.transaction(async (configurations) => {
      await configurations.clearDefaultOutbound(caller.organizationId);
      return configurations.markDefaultOutbound(row.id);
    });
    return this.telephony.configurationView(updated);
  }

  /** Saves, turning a taken name into 409. */
  private async savingNamed(
    row: TelephonyConfiguration,
    save: () => Promise<TelephonyConfiguration>,
  ): Promise<TelephonyConfiguration> {
    try {
      return await save();
    } catch (error) {
      if (isUniqueViolation(error, NAME_CONSTRAINT)) throw duplicateName(row.name);
      throw error;
    }
  }
}
