import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import { createBackoffThrottle } from './backoff-throttle';
import { clientNetwork } from './client-network';

export interface LoginThrottle {
  /**
   * 429 while the client's network or the email must wait; otherwise counts the attempt against
   * both before the password is checked, so parallel guesses (at one account, or at many from one
   * network) cannot slip past either backoff while their hashes are computed.
   */
  begin(email: string, address: string): Promise<void>;
  /**
   * The password was right: the email's count is forgotten and the network's attempt taken back.
   * The network keeps its failures: a success between guesses wipes nothing.
   */
  succeeded(email: string, address: string): Promise<void>;
}

type ThrottleConfig = Pick<
  Config,
  | 'LOGIN_MAX_FAILURES_PER_EMAIL'
  | 'LOGIN_MAX_FAILURES_PER_ADDRESS'
  | 'LOGIN_FAILURE_WINDOW_MINUTES'
  | 'LOGIN_MAX_BACKOFF_SECONDS'
>;

const emailKey = (email: string) => `email:${email}`;
const addressKey = (address: string) => `ip:${clientNetwork(address)}`;
/** Long enough to slow guessing at once, short enough to pass unnoticed by a person retyping. */
const FIRST_BACKOFF_SECONDS = 5;
const tooMany = (seconds: number) => `Too many failed login attempts; try again in ${seconds} seconds`;

/**
 * Per email and per client network (an IPv4 address, an IPv6 /64), failures past a free allowance
 * make the next attempt wait 5 s, doubling up to LOGIN_MAX_BACKOFF_SECONDS. An attempt counts as a
 * failure from its start until its password proves right. The cap is short on purpose: anyone can
 * fail logins for someone else's email or from a shared address, and that must cost the owner
 * seconds, not the account.
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
      await addresses.countIfAllowed(addressKey(address));
      try {
        await emails.countIfAllowed(emailKey(email));
      } catch (error) {
        // Refused before any password was checked: not an attempt of the network's.
        await addresses.uncount(addressKey(address));
        throw error;
      }
    },
    async succeeded(email, address) {
      await emails.clear(emailKey(email));
      await addresses.uncount(addressKey(address));
    },
  };
}
