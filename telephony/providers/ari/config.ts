import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ProviderField } from '../../provider';

export const DEFAULT_DIAL_STRING_TEMPLATE = 'PJSIP/{number}';

/** The websocket_client.conf connection used when `ws_client_name` is empty (docs/guides/asterisk.md). */
export const DEFAULT_WS_CLIENT_NAME = 'switchboard';

export const ariConfigSchema = z.object({
  /** Asterisk's HTTP origin, e.g. `http://pbx.example.com:8088` (a trailing `/ari` is accepted). */
  ari_endpoint: z.url({ protocol: /^https?$/ }),
  /** The ARI user (ari.conf). */
  app_name: z.string().min(1),
  app_password: z.string().min(1),
  /**
   * The websocket_client.conf connection Asterisk dials for external media (empty: DEFAULT_WS_CLIENT_NAME).
   * It becomes part of a dial string, where `/`, `,` and parentheses are separators.
   */
  ws_client_name: z
    .string()
    .regex(/^[A-Za-z0-9_.-]*$/, 'must be a websocket_client.conf connection name (letters, digits, _ . -)')
    .default(''),
  /**
   * How a number becomes a dial string; `{number}` is replaced by the called number. A pattern rather
   * than `includes`, so the OpenAPI document states the rule too.
   */
  dial_string_template: z
    .string()
    .regex(/\{number\}/, 'must include "{number}"')
    .default(DEFAULT_DIAL_STRING_TEMPLATE),
  /** Server-managed: minted with `mintStasisAppName` when the configuration is created, then kept. */
  stasis_app_name: z.string().min(1).optional(),
});
export type AriConfig = z.infer<typeof ariConfigSchema>;

export function mintStasisAppName(): string {
  return `switchboard_${randomBytes(6).toString('hex')}`;
}

export const ariFields: ProviderField[] = [
  {
    name: 'ari_endpoint',
    label: 'ARI endpoint',
    type: 'text',
    description: "Asterisk's HTTP server (http.conf), reachable from Switchboard.",
    placeholder: 'http://pbx.example.com:8088',
    required: true,
    sensitive: false,
  },
  {
    name: 'app_name',
    label: 'ARI user',
    type: 'text',
    description: 'The user defined in ari.conf.',
    placeholder: 'switchboard',
    required: true,
    sensitive: false,
  },
  {
    name: 'app_password',
    label: 'ARI password',
    type: 'password',
    description: "The ARI user's password.",
    placeholder: 'a-long-random-password',
    required: true,
    sensitive: true,
  },
  {
    name: 'ws_client_name',
    label: 'WebSocket client name',
    type: 'text',
    description: `The connection in websocket_client.conf that Asterisk uses to stream call audio (default ${DEFAULT_WS_CLIENT_NAME}).`,
    placeholder: DEFAULT_WS_CLIENT_NAME,
    required: false,
    sensitive: false,
  },
  {
    name: 'dial_string_template',
    label: 'Dial string template',
    type: 'text',
    description: 'How a called number becomes an Asterisk dial string; {number} is replaced by the number.',
    placeholder: DEFAULT_DIAL_STRING_TEMPLATE,
    required: false,
    sensitive: false,
  },
];
