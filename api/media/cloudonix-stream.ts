import type { ProviderStreamFactory } from './stream-support';
import { runTwilioStream, TwilioTransport } from './twilio-stream';

/**
 * Cloudonix `<Connect><Stream>` (provider-wire-formats §6.4): cXML is TwiML-compatible and the
 * frame format is not documented; it is presumed to be Twilio Media Streams (JSON `connected`/
 * `start`/`media`/`mark`/`dtmf`/`stop`, base64 µ-law 8 kHz; `media`, `mark`, `clear` back), so the
 * Twilio protocol code serves it unchanged. Unconfirmed: revisit with a live Cloudonix trace.
 */
export const cloudonixStream: ProviderStreamFactory = (socket, log) => {
  const transport = new TwilioTransport(socket);
  return { transport, attach: (session) => runTwilioStream(socket, transport, session, log) };
};
