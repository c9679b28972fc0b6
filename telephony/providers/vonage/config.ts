import { z } from 'zod';
import type { ProviderField } from '../../provider';

export const vonageConfigSchema = z.object({
  api_key: z.string().min(1),
  api_secret: z.string().min(1),
  application_id: z.string().min(1),
  /** The application's PEM private key; it signs the RS256 JWT of every Voice API request. */
  private_key: z.string().min(1),
  /** Signs Vonage's webhooks (HS256); required for inbound calls and signed callbacks. */
  signature_secret: z.string().optional(),
});
export type VonageConfig = z.infer<typeof vonageConfigSchema>;

export const vonageFields: ProviderField[] = [
  {
    name: 'api_key',
    label: 'API key',
    type: 'password',
    description: 'The account API key (Vonage dashboard → API settings).',
    placeholder: 'abcd1234',
    required: true,
    sensitive: true,
  },
  {
    name: 'api_secret',
    label: 'API secret',
    type: 'password',
    description: 'The account API secret, used to update the application for inbound calls.',
    placeholder: 'AbCdEf0123456789',
    required: true,
    sensitive: true,
  },
  {
    name: 'application_id',
    label: 'Application id',
    type: 'text',
    description: 'The Voice application that places the calls.',
    placeholder: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
    required: true,
    sensitive: false,
  },
  {
    name: 'private_key',
    label: 'Private key',
    type: 'textarea',
    description: "The application's private key (PEM), downloaded when the application was created.",
    placeholder: '-----BEGIN PRIVATE KEY-----',
    required: true,
    sensitive: true,
  },
  {
    name: 'signature_secret',
    label: 'Signature secret',
    type: 'password',
    description: 'The account signature secret; needed for inbound calls and to verify signed webhooks.',
    placeholder: 'qwertyuiopasdfghjklzxcvbnm123456',
    required: false,
    sensitive: true,
  },
];
