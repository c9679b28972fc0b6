import { z } from 'zod';
import type { ProviderField } from '../../provider';

export const telnyxConfigSchema = z.object({
  api_key: z.string().min(1),
  /** The Call Control App id; the configuration API creates one when it is left empty. */
  connection_id: z.string().optional(),
  /** Base64 of the account's raw 32-byte Ed25519 public key; webhooks fail verification without it. */
  webhook_public_key: z.string().optional(),
});
export type TelnyxConfig = z.infer<typeof telnyxConfigSchema>;

export const telnyxFields: ProviderField[] = [
  {
    name: 'api_key',
    label: 'API key',
    type: 'password',
    description: 'A Telnyx API v2 key (Mission Control → Account settings → Keys & Credentials).',
    placeholder: 'KEY0123456789ABCDEF_…',
    required: true,
    sensitive: true,
  },
  {
    name: 'connection_id',
    label: 'Call Control App id',
    type: 'text',
    description: 'The Call Control Application that places and receives calls. Leave empty to create one.',
    placeholder: '1293384261075731499',
    required: false,
    sensitive: false,
  },
  {
    name: 'webhook_public_key',
    label: 'Webhook public key',
    type: 'text',
    description: 'The account public key (base64) used to verify the Ed25519 signature of Telnyx webhooks.',
    placeholder: '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
    required: false,
    sensitive: false,
  },
];
