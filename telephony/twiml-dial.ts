import { escapeXml } from './inbound';
import type { StartTransferRequest } from './provider';
import { isSipAddress } from './transfer-callback';

/** Where a transfer's `<Dial>` reports: its end (`action`) and its leg's progress (`statusCallback`). */
export interface DialCallbacks {
  actionUrl: string;
  statusCallbackUrl: string;
}

/**
 * TwiML `<Dial>` (also cXML, which follows TwiML) of a transfer's destination, a `<Number>` or a
 * `<Sip>` URI, ringing for the ring timeout with the leg's progress posted to `statusCallbackUrl`.
 */
export function dialDocument(request: StartTransferRequest, callbacks: DialCallbacks): string {
  const dial = [
    `action="${escapeXml(callbacks.actionUrl)}"`,
    'method="POST"',
    `timeout="${request.ringTimeoutSeconds}"`,
    ...(request.from ? [`callerId="${escapeXml(request.from)}"`] : []),
  ].join(' ');
  const noun = isSipAddress(request.destination) ? 'Sip' : 'Number';
  const leg = [
    `statusCallback="${escapeXml(callbacks.statusCallbackUrl)}"`,
    'statusCallbackMethod="POST"',
    'statusCallbackEvent="initiated ringing answered completed"',
  ].join(' ');
  return `<Response><Dial ${dial}><${noun} ${leg}>${escapeXml(request.destination)}</${noun}></Dial></Response>`;
}
