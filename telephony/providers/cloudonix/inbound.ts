import type { InboundWebhooks, TelephonyProvider } from '../../provider';
import { connectStreamDocument, optionalField, requiredField, webhookFields, xmlReply } from '../../inbound';

const REJECT = xmlReply('<Response><Reject reason="rejected"/></Response>');

/** The voice-application request: JSON (POST) or query (GET) with `CallSid` (the session token), `To`, `From`. */
export const cloudonixInbound: InboundWebhooks = {
  parse(request) {
    const fields = webhookFields(request, 'Cloudonix');
    return {
      calledNumber: requiredField(fields, 'To', 'Cloudonix'),
      callerNumber: optionalField(fields, 'From'),
      providerCallId: requiredField(fields, 'CallSid', 'Cloudonix'),
      // Cloudonix's voice-application request carries no caller ID verification.
      callerIdVerified: false,
      raw: fields,
    };
  },
  refuseUnknown: () => REJECT,
};

/** cXML (TwiML-compatible) `<Connect><Stream>` to the media endpoint; `<Reject/>` otherwise. */
export const cloudonixAnswering: Pick<TelephonyProvider, 'answerCall' | 'rejectCall'> = {
  answerCall: (target) => Promise.resolve(xmlReply(connectStreamDocument(target.mediaStreamUrl))),
  rejectCall: () => Promise.resolve(REJECT),
};
