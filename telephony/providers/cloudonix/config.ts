import { z } from 'zod';
import type { ProviderField } from '../../provider';

export const cloudonixConfigSchema = z.object({
  bearer_token: z.string().min(1),
  /** The domain name; a bare name stands for `<name>.cloudonix.net`. */
  domain_id: z.string().min(1),
  /** The domain's Voice Application that inbound calls reach; the configuration API creates one when empty. */
  application_name: z.string().optional(),
});
export type CloudonixConfig = z.infer<typeof cloudonixConfigSchema>;

export const cloudonixFields: ProviderField[] = [
  {
    name: 'bearer_token',
    label: 'Domain API key',
    type: 'password',
    description: 'A Cloudonix API key of the domain; it authenticates API calls and the webhooks Cloudonix sends.',
    placeholder: 'XI0123456789ABCDEF',
    required: true,
    sensitive: true,
  },
  {
    name: 'domain_id',
    label: 'Domain',
    type: 'text',
    description: 'The Cloudonix domain; a bare name becomes <name>.cloudonix.net.',
    placeholder: 'acme.cloudonix.net',
    required: true,
    sensitive: false,
  },
  {
    name: 'application_name',
    label: 'Voice application',
    type: 'text',
    description: 'The Voice Application that routes inbound calls here. Leave empty to create one.',
    placeholder: 'switchboard-inbound',
    required: false,
    sensitive: false,
  },
];

/** Cloudonix accepts a bare domain name in the console; its API wants the full domain. */
export function cloudonixDomain(config: CloudonixConfig): string {
  return config.domain_id.includes('.') ? config.domain_id : `${config.domain_id}.cloudonix.net`;
}
