import { webhookFields } from '../../inbound';
import type { NonceStore } from '../../nonce-store';
import type { WebhookRequest } from '../../provider';
import { vonageSignedClaims } from './signature';

/**
 * A run's answer-URL request from Vonage. Its token signs no URL and, for the default GET, no body:
 * any token Vonage sent within the last five minutes (to this or another answer URL of the account)
 * would otherwise fetch any run's NCCO, and with it the run's media URL and token. So the request
 * must name the run's own call (`uuid`, the id Vonage gave the call when it was placed), and its
 * token (`jti`) is used once, in every process (the shared nonce store).
 */
export async function bindsAnswerToCall(
  request: WebhookRequest,
  providerCallId: string | null,
  { signatureSecret, now, nonces }: { signatureSecret: string | undefined; now: Date; nonces: NonceStore },
): Promise<boolean> {
  if (!providerCallId) return false;
  const claims = await vonageSignedClaims(request, signatureSecret, now);
  if (!claims || typeof claims.jti !== 'string' || !claims.jti) return false;
  let uuid: unknown;
  try {
    uuid = webhookFields(request, 'Vonage').uuid;
  } catch {
    return false;
  }
  if (uuid !== providerCallId) return false;
  return nonces.claim(`vonage-answer:${claims.jti}`);
}
