import type { WebSocket } from 'ws';
import { pathOf, startLocalServer, type LocalServer } from './local-server';

/** ElevenLabs input streaming (`/v1/text-to-speech/{voice}/stream-input`) with a fixed time to first audio. */
export interface FakeElevenLabsOptions {
  apiKey: string;
  /** Every reply's audio, PCM16 mono at 8 kHz (`output_format=pcm_8000`), whatever its text. */
  reply: Int16Array;
  firstAudioMs: number;
}

/** Audio goes out in messages of this many samples (0.5 s), as ElevenLabs sends a reply in a few pieces. */
const MESSAGE_SAMPLES = 4000;

/**
 * The real protocol as the adapter speaks it: the first message carries `xi_api_key` (a wrong one
 * closes with 1008, as ElevenLabs does), text messages follow, `{text: ""}` ends the input. The
 * first text that is not the opening space is answered `firstAudioMs` later with the whole reply's
 * audio at once; `isFinal` follows once the input has ended. The messages are built once.
 */
export function startFakeElevenLabs(options: FakeElevenLabsOptions): Promise<LocalServer> {
  const bytes = Buffer.from(options.reply.buffer, options.reply.byteOffset, options.reply.byteLength);
  const audio: string[] = [];
  for (let at = 0; at < bytes.length; at += MESSAGE_SAMPLES * 2) {
    audio.push(
      JSON.stringify({ audio: bytes.subarray(at, at + MESSAGE_SAMPLES * 2).toString('base64'), isFinal: null }),
    );
  }
  const final = JSON.stringify({ audio: null, isFinal: true });
  return startLocalServer({
    accept: (request) => (/^\/v1\/text-to-speech\/[^/]+\/stream-input$/.test(pathOf(request)) ? null : 404),
    onSocket: (socket) => speak(socket, options, audio, final),
  });
}

function speak(socket: WebSocket, options: FakeElevenLabsOptions, audio: string[], final: string): void {
  let opened = false;
  let textSeen = false;
  let audioSent = false;
  let inputEnded = false;
  let timer: NodeJS.Timeout | null = null;
  socket.on('close', () => timer && clearTimeout(timer));
  const finishIfDone = () => {
    if (inputEnded && (audioSent || !textSeen)) {
      socket.send(final);
      socket.close(1000);
    }
  };
  socket.on('message', (data: Buffer) => {
    const message = JSON.parse(data.toString('utf8')) as { text?: string; xi_api_key?: string };
    if (!opened) {
      opened = true;
      if (message.xi_api_key !== options.apiKey) socket.close(1008, 'Invalid API key');
      return;
    }
    if (message.text === '') {
      inputEnded = true;
      finishIfDone();
      return;
    }
    if (textSeen || !message.text?.trim()) return;
    textSeen = true;
    timer = setTimeout(() => {
      timer = null;
      for (const piece of audio) socket.send(piece);
      audioSent = true;
      finishIfDone();
    }, options.firstAudioMs);
  });
}
