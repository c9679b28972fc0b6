import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import { createBackoffThrottle } from './backoff-throttle';

export interface LoginThrottle {
  /**
   * 429 while the client address or the email must wait; otherwise counts the attempt against the
   * email before the password is checked, so parallel guesses cannot slip past the backoff.
   */
  begin(email: string, address: string): Promise<void>;
  /** The password was wrong: the address counts a failure too. */
  failed(address: string): Promise<void>;
  /** The password was right: the email's count is forgotten. The address keeps its count. */
  succeeded(email: string): Promise<void>;
}

type ThrottleConfig = Pick<
  Config,
  | 'LOGIN_MAX_FAILURES_PER_EMAIL'
  | 'LOGIN_MAX_FAILURES_PER_ADDRESS'
  | 'LOGIN_FAILURE_WINDOW_MINUTES'
  | 'LOGIN_MAX_BACKOFF_SECONDS'
>;

const emailKey = (email: string) => `email:${email}`;
const addressKey = (address: string) => `ip:${address}`;
/** Long enough to slow guessing at once, short enough to pass unnoticed by a person retyping. */
const FIRST_BACKOFF_SECONDS = 5;
const tooMany = (seconds: number) => `Too many failed login attempts; try again in ${seconds} seconds`;

/**
 * Per email and per client address, failures past a free allowance make the next attempt wait 5 s,
 * doubling up to LOGIN_MAX_BACKOFF_SECONDS. The cap is short on purpose: anyone can fail logins for
 * someone else's email or from a shared address, and that must cost the owner seconds, not the account.
 */
export function createLoginThrottle(dataSource: DataSource, config: ThrottleConfig, logger: Logger): LoginThrottle {
  const shared = {
    firstBackoffSeconds: FIRST_BACKOFF_SECONDS,
    maxBackoffSeconds: config.LOGIN_MAX_BACKOFF_SECONDS,
    forgetAfterMinutes: config.LOGIN_FAILURE_WINDOW_MINUTES,
  };
  const emails = createBackoffThrottle(
    dataSource,
    { free: config.LOGIN_MAX_FAILURES_PER_EMAIL, ...shared },
    tooMany,
    logger,
  );
  const addresses = createBackoffThrottle(
    dataSource,
    { free: config.LOGIN_MAX_FAILURES_PER_ADDRESS, ...shared },
    tooMany,
    logger,
  );
  return {
    async begin(email, address) {
      await addresses.ensureAllowed([addressKey(address)]);
      await emails.countIfAllowed(emailKey(email));
    },
    failed: (address) => addresses.count(addressKey(address)),
    succeeded: (email) => emails.clear(emailKey(email)),
  };
}
