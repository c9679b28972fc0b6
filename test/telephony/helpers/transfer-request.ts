import type { StartTransferRequest } from '../../../telephony/provider';

const BASE = 'https://sb.example.com/api/v1/telephony';

/**
 * A transfer of run 42 as the call activities hand it to a provider's adapter: Switchboard's
 * public URLs for `provider`, a blind transfer unless `fields` say otherwise.
 */
export function transferRequest(
  provider: string,
  fields: Pick<StartTransferRequest, 'providerCallId' | 'destination' | 'from'> & Partial<StartTransferRequest>,
): StartTransferRequest {
  return {
    runId: 42,
    mode: 'blind',
    announcement: null,
    holdAudioUrl: `${BASE}/hold-audio.wav`,
    holdAudioMp3Url: `${BASE}/hold-audio.mp3`,
    ringTimeoutSeconds: 25,
    idempotencyKey: 'call-7-42:transfer-1',
    transferCallbackUrl: `${BASE}/${provider}/transfer/42`,
    answerUrl: `${BASE}/${provider}/answer/42`,
    mediaStreamUrl: `wss://sb.example.com/api/v1/telephony/${provider}/media/42?token=t`,
    ...fields,
  };
}
