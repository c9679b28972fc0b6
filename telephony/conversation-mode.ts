import type { TelephonyConfiguration } from '../entities';
import { openCredentials } from './credentials';
import type { Secrets } from './secrets';

/**
 * How a configuration's calls converse: every real provider carries audio, so its calls are
 * `live` (the voice pipeline on the media stream); the simulator is live only with `audio: true`,
 * else its text-only callee talks to the agent (`simulated`).
 */
export function conversationModeOf(
  configuration: Pick<TelephonyConfiguration, 'provider' | 'credentials'>,
  secrets: Secrets,
): 'live' | 'simulated' {
  if (configuration.provider !== 'simulator') return 'live';
  return openCredentials(configuration.credentials, secrets).audio === true ? 'live' : 'simulated';
}
