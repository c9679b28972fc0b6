import { z } from 'zod';
import type { ProviderField } from '../../provider';

export const simulatorConfigSchema = z.object({
  ring_seconds: z.number().int().min(0).max(600).default(1),
  talk_seconds: z.number().int().min(0).max(3600).default(3),
  /** How long the person a transfer reaches talks with the caller; unset: `talk_seconds`. */
  transfer_talk_seconds: z.number().int().min(0).max(3600).optional(),
  /** True: calls carry synthesized speech through the media endpoint; false: a text-only conversation. */
  audio: z.boolean().default(false),
  /**
   * The virtual carrier's own rate limit: a dial closer than 1 / max_calls_per_second seconds to the
   * previous one from the same caller number is answered 429 with `Retry-After: 1`. Unset: no limit.
   */
  max_calls_per_second: z.number().min(0.01).max(1000).optional(),
  /** Every dial is answered with this HTTP status (503: an outage, 401: bad credentials). Unset: dials succeed. */
  dial_error_status: z.number().int().min(400).max(599).optional(),
});
export type SimulatorConfig = z.output<typeof simulatorConfigSchema>;

export const simulatorFields: ProviderField[] = [
  {
    name: 'ring_seconds',
    label: 'Ring seconds',
    type: 'number',
    description: 'How long each call rings before its outcome (default 1).',
    placeholder: '1',
    required: false,
    sensitive: false,
  },
  {
    name: 'talk_seconds',
    label: 'Talk seconds',
    type: 'number',
    description: 'How long an answered call lasts before the simulated callee hangs up (default 3).',
    placeholder: '3',
    required: false,
    sensitive: false,
  },
  {
    name: 'transfer_talk_seconds',
    label: 'Transfer talk seconds',
    type: 'number',
    description:
      'How long the person a transfer reaches talks with the caller before hanging up (default: talk seconds).',
    placeholder: '',
    required: false,
    sensitive: false,
  },
  {
    name: 'audio',
    label: 'Audio',
    type: 'boolean',
    description: 'Carry synthesized speech through the media endpoint instead of a text-only conversation.',
    placeholder: '',
    required: false,
    sensitive: false,
  },
  {
    name: 'max_calls_per_second',
    label: 'Carrier rate limit',
    type: 'number',
    description: 'Dials faster than this (per caller number) are answered 429 with Retry-After: 1 (default: no limit).',
    placeholder: '',
    required: false,
    sensitive: false,
  },
  {
    name: 'dial_error_status',
    label: 'Dial error status',
    type: 'number',
    description: 'Answer every dial with this HTTP status, 400 to 599 (default: dials succeed).',
    placeholder: '',
    required: false,
    sensitive: false,
  },
];
