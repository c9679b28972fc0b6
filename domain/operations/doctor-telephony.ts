import { randomUUID } from 'node:crypto';
import { createPhoneNumberRepository } from '../../entities/repositories/phone-number.repository';
import { createTelephonyConfigurationRepository } from '../../entities/repositories/telephony-configuration.repository';
import { ProviderError } from '../../telephony/provider';
import { providerFor } from '../../telephony/registry';
import { finding, type DoctorDeps, type Finding } from './doctor';
import { DEFAULT_DOCTOR_TIMEOUT_MS } from './doctor-http';

/**
 * Each telephony configuration, of every organization: its credentials tried by looking up a call
 * that does not exist (a provider that accepts them answers "not found"; one that does not, 401 or
 * 403), and its readiness to dial (an active caller id).
 */
export async function telephonyFindings(deps: DoctorDeps): Promise<Finding[]> {
  const { dataSource, secrets, config } = deps;
  const rows = await createTelephonyConfigurationRepository(dataSource).realProviderConfigurations();
  if (rows.length === 0) {
    return [
      finding(
        'telephony',
        'warn',
        'No telephony configuration other than the simulator: no real call can be placed',
        'Add one for your carrier (POST /organizations/telephony-configs); see docs/guides/telephony.md',
      ),
    ];
  }
  const numbers = await createPhoneNumberRepository(dataSource).readinessOf(rows.map((row) => row.id));
  return Promise.all(
    rows.map(async (row) => {
      const check = `telephony configuration ${row.id} "${row.name}" (${row.provider}, organization ${row.organization_id})`;
      const fix = `Correct its credentials (PUT /organizations/telephony-configs/${row.id}) from the ${row.provider} console`;
      let provider;
      try {
        provider = providerFor(row, secrets, {
          timeoutMs: deps.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS,
          ...(config.TELEPHONY_API_BASE_URL ? { apiBaseUrl: config.TELEPHONY_API_BASE_URL } : {}),
          ...(deps.fetch ? { fetch: deps.fetch } : {}),
        });
      } catch (error) {
        return finding(check, 'fail', `its stored settings cannot be read: ${(error as Error).message}`, fix);
      }
      try {
        await provider.getCallStatus(`doctor-${randomUUID()}`);
      } catch (error) {
        if (error instanceof ProviderError && (error.status === 401 || error.status === 403)) {
          return finding(check, 'fail', `${row.provider} refused its credentials: ${error.message}`, fix);
        }
        return finding(
          check,
          'warn',
          `could not tell whether ${row.provider} accepts its credentials: ${(error as Error).message}`,
          'Check the provider is reachable from this host',
        );
      }
      const readiness = provider.readiness(numbers.filter((number) => number.configuration_id === row.id));
      if (!readiness.ready)
        return finding(check, 'warn', `credentials accepted, but ${readiness.reason}`, readiness.reason);
      return finding(check, 'ok', `${row.provider} accepted its credentials`);
    }),
  );
}
