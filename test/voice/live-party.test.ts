import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { converse, IDLE_REMINDER, type ConversationInput, type TranscriptLine } from '../../agent-runtime';
import { createLogger } from '../../platform/logger';
import { MediaSession, type MediaTransport } from '../../voice/media-session';
import { LiveParty, type VoiceEvent } from '../../voice/pipeline/live-party';
import { turnSettingsOf } from '../../voice/pipeline/turn-settings';
import { EspeakTts } from '../../voice/speech/espeak-tts';
import type { SttHandlers, SttStream } from '../../voice/speech/stt';
import type { TextToSpeech } from '../../voice/speech/tts';
import { synthesize } from '../../voice/speech/whole';
import { TwoTrackRecorder } from '../../voice/two-track-recorder';
import { tone } from './audio-helpers';

/**
 * The live party against a real media session, recorder and Silero VAD, with scripted speech
 * engines: speech-to-text answers each finalize with the next scripted text after 20 ms, and
 * text-to-speech turns each sentence into 60 ms of tone per word. The caller streams in real time.
 */
let dir: string;
let speech: Int16Array;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'live-party-'));
  speech = await synthesize(new EspeakTts(), ['Yes, I can do that for you.'], { sampleRate: 8000 });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const scriptedStt = (answers: string[]) => ({
  open: (_options: unknown, handlers: SttHandlers): Promise<SttStream> =>
    Promise.resolve({
      push: () => undefined,
      finalize: () => {
        const text = answers.shift() ?? '';
        setTimeout(() => handlers.onTranscript({ text, isFinal: true, speechFinal: true, start: null, end: null }), 20);
      },
      close: () => Promise.resolve(),
    }),
});

const toneTts: TextToSpeech = {
  provider: 'tone',
  open: (_options, handlers) => {
    let cancelled = false;
    const pending: Promise<void>[] = [];
    return Promise.resolve({
      speak: (text: string) => {
        pending.push(
          new Promise((resolve) =>
            setTimeout(() => {
              if (!cancelled) handlers.onAudio(tone(500, 8000, 0.06 * text.split(' ').length));
              resolve();
            }, 5),
          ),
        );
      },
      end: () => void Promise.all(pending).then(() => !cancelled && handlers.onDone?.()),
      cancel: () => {
        cancelled = true;
      },
    });
  },
};

interface Harness {
  party: LiveParty;
  session: MediaSession;
  sent: { samples: number; clears: number };
  events: VoiceEvent[];
  say(samples: Int16Array): void;
  stop(): void;
}

let runs = 0;
async function harness(
  configurations: Record<string, unknown>,
  sttAnswers: string[],
  tts: TextToSpeech = toneTts,
): Promise<Harness> {
  runs += 1;
  const sent = { samples: 0, clears: 0 };
  const transport: MediaTransport = {
    sendAudio: (samples) => (sent.samples += samples.length),
    sendMark: () => undefined,
    clear: () => (sent.clears += 1),
  };
  const recorder = await TwoTrackRecorder.create(join(dir, `${runs}.wav`));
  const session = new MediaSession(runs, transport, recorder, () => Promise.resolve());
  const events: VoiceEvent[] = [];
  const party = await LiveParty.open({
    session,
    tts,
    ttsOptions: { sampleRate: 8000 },
    openStt: (handlers) => scriptedStt(sttAnswers).open(undefined, handlers),
    settings: turnSettingsOf(configurations),
    log: createLogger('silent', 'live-party-test'),
    onEvent: (event) => events.push(event),
  });
  const queue: Int16Array[] = [];
  const started = Date.now();
  let frames = 0;
  const timer = setInterval(() => {
    const due = Math.floor((Date.now() - started) / 20);
    for (; frames < due; frames++) {
      const frame = new Int16Array(160);
      let filled = 0;
      while (filled < 160 && queue.length > 0) {
        const head = queue[0] as Int16Array;
        const used = Math.min(head.length, 160 - filled);
        frame.set(head.subarray(0, used), filled);
        filled += used;
        if (used === head.length) queue.shift();
        else queue[0] = head.subarray(used);
      }
      session.callerAudio(frame);
    }
  }, 20);
  return {
    party,
    session,
    sent,
    events,
    say: (samples) => queue.push(samples),
    stop: () => {
      clearInterval(timer);
      void session.end();
    },
  };
}

const input = (greeting: string, allowInterrupt: boolean): ConversationInput => ({
  runId: 1,
  definition: {
    nodes: [
      {
        id: 'start',
        type: 'startCall',
        data: { name: 'Start', prompt: 'Ask.', greeting, allow_interrupt: allowInterrupt },
      },
      { id: 'end', type: 'endCall', data: { name: 'End', prompt: 'Goodbye now.' } },
    ],
    edges: [{ id: 'e', source: 'start', target: 'end', data: { label: 'Done', condition: 'answered' } }],
  },
  workflowConfigurations: {},
  templateContextVariables: {},
  initialContext: {},
  dispositionCodes: [],
  maxDurationSeconds: 60,
  callee: { kind: 'live' },
});

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A greeting of `words` words (60 ms each in the scripted speech), interruptible. */
const longGreeting = (words: number) => Array.from({ length: words }, () => 'word').join(' ') + '.';

/** The agent greets with `greeting` on an interruptible node; half a second in, the caller says `caller`. */
async function talkOver(call: Harness, greeting: string, caller: Int16Array[]) {
  const conversation = converse(input(greeting, true), { party: call.party });
  await wait(500);
  for (const samples of caller) call.say(samples);
  const result = await conversation;
  call.stop();
  await call.party.close();
  return result;
}

describe('a live party', () => {
  it('asks whether a silent caller is still there, then ends the call as user_idle', async () => {
    const call = await harness({ max_user_idle_timeout: 1 }, []);
    const result = await converse(input('Hello there.', false), { party: call.party });
    call.stop();
    await call.party.close();
    expect(result.transcript.map((line) => line.text)).toEqual(['Hello there.', IDLE_REMINDER]);
    expect(result.endedBy).toBe('user_idle');
    expect(result.disposition).toBe('user_idle_max_duration_exceeded');
  }, 20_000);

  it('min_words: a short backchannel over the agent neither interrupts nor becomes a turn', async () => {
    const call = await harness(
      { turn_start_strategy: 'min_words', turn_start_min_words: 3, max_user_idle_timeout: 1.5 },
      ['okay'],
    );
    const result = await talkOver(call, longGreeting(60), [speech]);
    expect(call.sent.clears).toBe(0);
    expect(call.events.some((event) => event.type === 'interrupted')).toBe(false);
    // The whole greeting (60 words × 60 ms) was played, and the backchannel was not answered.
    expect(call.sent.samples).toBeGreaterThanOrEqual(60 * 480);
    expect(result.transcript.filter((line) => line.role === 'user')).toEqual([]);
  }, 30_000);

  it('min_words: enough words over the agent interrupt it and make the turn', async () => {
    const call = await harness({ turn_start_strategy: 'min_words', turn_start_min_words: 3 }, ['yes i can do that']);
    const result = await talkOver(call, longGreeting(100), [speech]);
    expect(call.sent.clears).toBe(1);
    expect(result.transcript.map((line) => [line.role, line.text.slice(0, 17)])).toEqual([
      ['assistant', 'word word word wo'],
      ['user', 'yes i can do that'],
      ['assistant', 'Goodbye now.'],
    ]);
    expect(result.endedBy).toBe('end_node');
  }, 30_000);

  it('provisional_vad: holds the agent while the caller makes a sound without words, then goes on', async () => {
    const call = await harness(
      { turn_start_strategy: 'provisional_vad', provisional_vad_pause_secs: 0.5, max_user_idle_timeout: 1 },
      [''],
    );
    // A click (no speech for the detector), then speech that has no words for speech-to-text.
    const result = await talkOver(call, longGreeting(60), [tone(300, 8000, 0.01), speech]);
    expect(call.events.some((event) => event.type === 'speech_started')).toBe(true);
    expect(call.sent.clears).toBe(0);
    expect(call.sent.samples).toBeGreaterThanOrEqual(60 * 480);
    expect(result.transcript[0]?.text).toBe(longGreeting(60));
  }, 30_000);

  it('ends as callee_hangup when the stream ends mid-reply, keeping what was said', async () => {
    const call = await harness({}, []);
    const conversation = converse(input(longGreeting(100), false), { party: call.party });
    await wait(800);
    call.stop();
    const result = await conversation;
    await call.party.close();
    expect(result.endedBy).toBe('callee_hangup');
    expect(result.disposition).toBe('user_hangup');
    expect(result.transcript).toHaveLength(1);
    expect((result.transcript[0] as TranscriptLine).end).toBeLessThan(2);
  }, 20_000);
});

describe('a voicemail message on a live call', () => {
  it("cuts the agent's reply, plays the whole message whatever the other side plays, and ends the conversation", async () => {
    const call = await harness({}, []);
    const conversation = converse(input(longGreeting(100), true), { party: call.party });
    await wait(500);
    const message = call.party.leaveMessage('Please call us back.');
    // A machine's greeting goes on under it: a message is never interrupted.
    call.say(speech);
    const line = await message;
    const result = await conversation;
    call.stop();
    await call.party.close();
    expect(line).toMatchObject({ role: 'assistant', text: 'Please call us back.' });
    // Four words of 60 ms tone, played at the caller stream's pace.
    expect((line?.end ?? 0) - (line?.start ?? 0)).toBeGreaterThanOrEqual(0.2);
    expect(result.endedBy).toBe('voicemail');
    expect(result.transcript.at(-1)?.text).not.toBe('Please call us back.');
    expect(call.sent.clears).toBeGreaterThanOrEqual(1);
    expect(call.events.some((event) => event.type === 'interrupted')).toBe(false);
  }, 20_000);

  it('claims nothing played when the stream ends before the message does', async () => {
    const call = await harness({}, []);
    const message = call.party.leaveMessage(longGreeting(100));
    await wait(300);
    call.stop();
    expect(await message).toBeNull();
    await call.party.close();
  }, 20_000);

  it('says nothing of a reply the engine starts after the conversation ended', async () => {
    const call = await harness({}, []);
    const message = call.party.leaveMessage('Please call us back.');
    const late = call.party.reply({ interruptible: false });
    late.sentence('This must not be heard.');
    expect((await late.finish()).over).toBe('voicemail');
    expect((await message)?.text).toBe('Please call us back.');
    call.stop();
    await call.party.close();
  }, 20_000);
});

/** The tone engine, logging what the reply asks of it; `loseFirst` closes the first stream with an error before any text. */
function loggedTts(log: string[], loseFirst = false): TextToSpeech {
  let opened = 0;
  return {
    provider: 'logged',
    open: async (options, handlers) => {
      opened += 1;
      log.push('open');
      if (loseFirst && opened === 1) {
        setTimeout(() => handlers.onError?.(new Error('idle timeout')), 5);
        return { speak: () => log.push('speak on a lost stream'), end: () => undefined, cancel: () => undefined };
      }
      const stream = await toneTts.open(options, handlers);
      return {
        speak: (text) => {
          log.push(`speak ${text}`);
          stream.speak(text);
        },
        end: () => {
          log.push('end');
          stream.end();
        },
        cancel: () => {
          log.push('cancel');
          stream.cancel();
        },
      };
    },
  };
}

/** A reply on a fresh call whose language-model request has just gone out. */
async function askedReply(loseFirst = false) {
  const log: string[] = [];
  const call = await harness({}, [], loggedTts(log, loseFirst));
  const reply = call.party.reply({ interruptible: false });
  reply.requestSent?.();
  return { log, call, reply };
}

async function hangUp(call: Harness): Promise<void> {
  call.stop();
  await call.party.close();
}

describe('a reply that asks the language model', () => {
  it('opens its speech stream when the model is asked, before the first sentence', async () => {
    const { log, call, reply } = await askedReply();
    await wait(20);
    expect(log).toEqual(['open']);
    reply.sentence('Hello there.');
    const spoken = await reply.finish();
    await hangUp(call);
    expect(log).toEqual(['open', 'speak Hello there.', 'end']);
    expect(spoken.line?.text).toBe('Hello there.');
    expect(call.sent.samples).toBeGreaterThan(0);
  }, 20_000);

  it('cancels the stream it opened when the model answers without words', async () => {
    const { log, call, reply } = await askedReply();
    await wait(20);
    const spoken = await reply.finish();
    await hangUp(call);
    expect(log).toEqual(['open', 'cancel']);
    expect(spoken.line).toBeNull();
    expect(call.sent.samples).toBe(0);
  }, 20_000);

  it('opens another stream when the one opened ahead is lost before the first sentence', async () => {
    const { log, call, reply } = await askedReply(true);
    await wait(50);
    reply.sentence('Still here.');
    const spoken = await reply.finish();
    await hangUp(call);
    expect(log).toEqual(['open', 'open', 'speak Still here.', 'end']);
    expect(spoken.line?.text).toBe('Still here.');
    expect(call.sent.samples).toBeGreaterThan(0);
  }, 20_000);
});
