import type { ApiDeps } from '../context';
import { createApiKeyUsageRecorder } from './api-key-usage';
import { createCredentialVerifier, type CredentialVerifier } from './credentials';
import { createLoginThrottle, type LoginThrottle } from './login-throttle';
import { loadSessionSecret } from './session-secret';
import { createSessionTokens, type SessionTokens } from './session-tokens';
import { createSignupThrottle, type SignupThrottle } from './signup-throttle';

/** Authentication state of one app instance, built once from its deps. */
export interface AuthServices {
  sessions: SessionTokens;
  credentials: CredentialVerifier;
  loginThrottle: LoginThrottle;
  signupThrottle: SignupThrottle;
}

export function createAuthServices({ config, dataSource, logger }: ApiDeps): AuthServices {
  const sessions = createSessionTokens(loadSessionSecret(config), config.SESSION_TTL_HOURS);
  return {
    sessions,
    credentials: createCredentialVerifier(dataSource, sessions, createApiKeyUsageRecorder(dataSource, logger)),
    loginThrottle: createLoginThrottle(dataSource, config, logger),
    signupThrottle: createSignupThrottle(dataSource, config, logger),
  };
}
