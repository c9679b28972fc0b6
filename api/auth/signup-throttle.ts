import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import { createBackoffThrottle } from './backoff-throttle';
import { clientNetwork } from './client-network';

export interface SignupThrottle {
  /** Counts a signup from `address` (its IPv6 /64), or answers 429 while it must wait. */
  begin(address: string): Promise<void>;
}

type ThrottleConfig = Pick<Config, 'SIGNUP_MAX_PER_ADDRESS' | 'SIGNUP_MAX_BACKOFF_SECONDS' | 'SIGNUP_WINDOW_MINUTES'>;

/** Every signup costs a password hash and a new organization: past a few per address, they slow down. */
export function createSignupThrottle(dataSource: DataSource, config: ThrottleConfig, logger: Logger): SignupThrottle {
  const throttle = createBackoffThrottle(
    dataSource,
    {
      free: config.SIGNUP_MAX_PER_ADDRESS,
      firstBackoffSeconds: 5,
      maxBackoffSeconds: config.SIGNUP_MAX_BACKOFF_SECONDS,
      forgetAfterMinutes: config.SIGNUP_WINDOW_MINUTES,
    },
    (seconds) => `Too many signups from this address; try again in ${seconds} seconds`,
    logger,
  );
  return { begin: (address) => throttle.countIfAllowed(`signup:${clientNetwork(address)}`) };
}
