import { z } from 'zod';
import type { ProviderField } from '../../provider';

export const twilioConfigSchema = z.object({
  account_sid: z.string().trim().min(1).max(64),
  auth_token: z.string().trim().min(1).max(128),
  /** Twilio answering-machine detection on every call: machine answers then end as `voicemail`. */
  amd_enabled: z.boolean().default(false),
});
export type TwilioConfig = z.output<typeof twilioConfigSchema>;

export const twilioFields: ProviderField[] = [
  {
    name: 'account_sid',
    label: 'Account SID',
    type: 'password',
    description: 'Your Twilio Account SID (Console, Account Info).',
    placeholder: 'ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    required: true,
    sensitive: true,
  },
  {
    name: 'auth_token',
    label: 'Auth Token',
    type: 'password',
    description: 'Your Twilio Auth Token; it also verifies the signatures of Twilio webhooks.',
    placeholder: 'your auth token',
    required: true,
    sensitive: true,
  },
  {
    name: 'amd_enabled',
    label: 'Answering machine detection',
    type: 'boolean',
    description:
      'Ask Twilio to detect answering machines on every call (billed by Twilio); such calls end as voicemail. ' +
      'Campaigns that leave a voicemail message ask for it whatever this says.',
    placeholder: '',
    required: false,
    sensitive: false,
  },
];
