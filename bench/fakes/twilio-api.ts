import type { IncomingMessage } from 'node:http';
import { startLocalServer, type LocalServer } from './local-server';

/** The few Twilio REST API (2010-04-01) resources Switchboard touches on an inbound call. */
export interface FakeTwilioApiOptions {
  accountSid: string;
  authToken: string;
  /** Our hang-up of a call (`Status=completed`): the network ends it, as Twilio would. */
  onHangup(callSid: string): void;
}

export interface FakeTwilioApi extends LocalServer {
  /** The caller hung up: the call resource reads `completed` from now on. */
  ended(callSid: string): void;
}

/**
 * Basic auth with the account SID and auth token; `IncomingPhoneNumbers` (list by `PhoneNumber`,
 * update of the voice URL) for binding the bench number, and `Calls/{sid}.json` (fetch: in
 * progress until it ended; update with `Status=completed`: the hang-up) for the call workflow.
 */
export async function startFakeTwilioApi(options: FakeTwilioApiOptions): Promise<FakeTwilioApi> {
  const account = `/2010-04-01/Accounts/${options.accountSid}`;
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  const ended = new Set<string>();
  const server = await startLocalServer({
    onRequest: (request, response) => {
      const send = (status: number, body: object) =>
        response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      if (request.headers.authorization !== authorization) {
        send(401, { code: 20003, message: 'Authenticate', status: 401 });
        return;
      }
      void formOf(request).then((form) => {
        const url = new URL(request.url ?? '/', 'http://local');
        const call = new RegExp(`^${account}/Calls/([^/]+)\\.json$`).exec(url.pathname);
        if (call?.[1]) {
          const sid = decodeURIComponent(call[1]);
          if (request.method === 'POST' && form.get('Status') === 'completed' && !ended.has(sid)) {
            ended.add(sid);
            options.onHangup(sid);
          }
          send(200, { sid, status: ended.has(sid) ? 'completed' : 'in-progress', duration: null });
        } else if (url.pathname === `${account}/IncomingPhoneNumbers.json`) {
          const phoneNumber = url.searchParams.get('PhoneNumber');
          send(200, { incoming_phone_numbers: phoneNumber ? [{ sid: 'PNbench', phone_number: phoneNumber }] : [] });
        } else if (url.pathname === `${account}/IncomingPhoneNumbers/PNbench.json` && request.method === 'POST') {
          send(200, { sid: 'PNbench', voice_url: form.get('VoiceUrl') });
        } else {
          send(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
        }
      });
    },
  });
  return { ...server, ended: (callSid) => void ended.add(callSid) };
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
