import { z } from 'zod';
import type { ProviderField } from '../../provider';

export const simulatorConfigSchema = z.object({
  ring_seconds: z.number().int().min(0).max(600).default(1),
  talk_seconds: z.number().int().min(0).max(3600).default(3),
  /** True: calls carry synthesized speech through the media endpoint; false: a text-only conversation. */
  audio: z.boolean().default(false),
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
    name: 'audio',
    label: 'Audio',
    type: 'boolean',
    description: 'Carry synthesized speech through the media endpoint instead of a text-only conversation.',
    placeholder: '',
    required: false,
    sensitive: false,
  },
];
