import type { InboundWebhooks, TelephonyProvider } from '../../provider';
import { connectStreamDocument, optionalField, requiredField, webhookFields, xmlReply } from '../../inbound';

const REJECT = xmlReply('<Response><Reject reason="rejected"/></Response>');

/** The Voice URL request: `CallSid`, `To` (our number), `From` (the caller), `StirVerstat`, form-encoded. */
export const twilioInbound: InboundWebhooks = {
  parse(request) {
    const fields = webhookFields(request, 'Twilio');
    return {
      calledNumber: requiredField(fields, 'To', 'Twilio'),
      callerNumber: optionalField(fields, 'From'),
      providerCallId: requiredField(fields, 'CallSid', 'Twilio'),
      accountId: optionalField(fields, 'AccountSid') ?? undefined,
      // `TN-Validation-Passed-B`/`-C`: the carrier signed, but does not vouch the caller owns the number.
      callerIdVerified: optionalField(fields, 'StirVerstat') === 'TN-Validation-Passed-A',
      raw: fields,
    };
  },
  refuseUnknown: () => REJECT,
};

/** TwiML `<Connect><Stream>` to the media endpoint, the run id as a stream parameter; `<Reject/>` otherwise. */
export const twilioAnswering: Pick<TelephonyProvider, 'answerCall' | 'rejectCall'> = {
  answerCall: (target) =>
    Promise.resolve(xmlReply(connectStreamDocument(target.mediaStreamUrl, { run_id: String(target.runId) }))),
  rejectCall: () => Promise.resolve(REJECT),
};
