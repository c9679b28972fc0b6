import { z } from 'zod';
import type { ProviderField } from '../../provider';

/** Plivo and Vobiz take the same account fields. */
export const plivoCompatibleConfigSchema = z.object({
  auth_id: z.string().trim().min(1).max(64),
  auth_token: z.string().trim().min(1).max(128),
  /** The Application whose answer URL receives inbound calls; needed to bind inbound agents. */
  application_id: z.string().trim().max(64).optional(),
});
export type PlivoCompatibleConfig = z.output<typeof plivoCompatibleConfigSchema>;

export function plivoCompatibleFields(providerLabel: string): ProviderField[] {
  return [
    {
      name: 'auth_id',
      label: 'Auth ID',
      type: 'password',
      description: `Your ${providerLabel} Auth ID (console overview).`,
      placeholder: 'MAXXXXXXXXXXXXXXXXXX',
      required: true,
      sensitive: true,
    },
    {
      name: 'auth_token',
      label: 'Auth Token',
      type: 'password',
      description: `Your ${providerLabel} Auth Token; it also verifies the signatures of ${providerLabel} callbacks.`,
      placeholder: 'your auth token',
      required: true,
      sensitive: true,
    },
    {
      name: 'application_id',
      label: 'Application ID',
      type: 'text',
      description: `The ${providerLabel} Application whose answer URL receives inbound calls; needed to bind an inbound agent.`,
      placeholder: '12345678901234567',
      required: false,
      sensitive: false,
    },
  ];
}
