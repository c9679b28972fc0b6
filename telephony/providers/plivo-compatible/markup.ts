import type { AnswerTarget, InboundWebhooks, TelephonyProvider } from '../../provider';
import { escapeXml, optionalField, requiredField, webhookFields, xmlReply } from '../../inbound';

const REJECT = xmlReply('<Response><Hangup reason="rejected"/></Response>');

/** The answer URL request (`Event=StartApp`): `CallUUID`, `To` (our number, no `+`), `From`; form or query. */
export function plivoCompatibleInbound(label: string): InboundWebhooks {
  return {
    parse(request) {
      const fields = webhookFields(request, label);
      return {
        calledNumber: requiredField(fields, 'To', label),
        callerNumber: optionalField(fields, 'From'),
        providerCallId: requiredField(fields, 'CallUUID', label),
        // `Verified` only with A attestation; `Not Verified` and `Not Applicable` (not a US call) are not.
        callerIdVerified: optionalField(fields, 'STIRVerification') === 'Verified',
        raw: fields,
      };
    },
    refuseUnknown: () => REJECT,
  };
}

/**
 * A bidirectional `<Stream>` (µ-law 8 kHz, kept alive for the whole call) to the media endpoint,
 * the run id in `extraHeaders`; `<Hangup reason="rejected"/>` otherwise.
 */
export function plivoStreamXml(target: AnswerTarget): string {
  return (
    '<Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" ' +
    `streamTimeout="86400" extraHeaders="runId=${target.runId}">${escapeXml(target.mediaStreamUrl)}</Stream></Response>`
  );
}

export const plivoCompatibleAnswering: Pick<TelephonyProvider, 'answerCall' | 'rejectCall'> = {
  answerCall: (target) => Promise.resolve(xmlReply(plivoStreamXml(target))),
  rejectCall: () => Promise.resolve(REJECT),
};
