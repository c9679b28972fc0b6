import type { InboundWebhooks, TelephonyProvider } from '../../provider';
import { jsonReply, optionalField, requiredField, webhookFields } from '../../inbound';

/** NCCO has no hang-up action: a call ends when its NCCO does, so a talk action alone refuses politely. */
const REJECT = jsonReply([{ action: 'talk', text: 'Sorry, this number cannot take your call. Goodbye.' }]);

/** The answer webhook: `to` (our number, digits only), `from`, `uuid`; a query (GET) or JSON (POST). */
export const vonageInbound: InboundWebhooks = {
  parse(request) {
    const fields = webhookFields(request, 'Vonage');
    return {
      calledNumber: requiredField(fields, 'to', 'Vonage'),
      callerNumber: optionalField(fields, 'from'),
      providerCallId: requiredField(fields, 'uuid', 'Vonage'),
      // Vonage's answer webhook says nothing of caller ID verification.
      callerIdVerified: false,
      raw: fields,
    };
  },
  refuseUnknown: () => REJECT,
};

/** The NCCO `connect` action that streams the call to the media endpoint (16 kHz linear PCM), the run id as a header. */
export const mediaConnectAction = (mediaStreamUrl: string, runId: number) => ({
  action: 'connect',
  endpoint: [
    {
      type: 'websocket',
      uri: mediaStreamUrl,
      'content-type': 'audio/l16;rate=16000',
      headers: { run_id: String(runId) },
    },
  ],
});

/** NCCO `connect` to the media endpoint as a WebSocket. */
export const vonageAnswering: Pick<TelephonyProvider, 'answerCall' | 'rejectCall'> = {
  answerCall: (target) => Promise.resolve(jsonReply([mediaConnectAction(target.mediaStreamUrl, target.runId)])),
  rejectCall: () => Promise.resolve(REJECT),
};
