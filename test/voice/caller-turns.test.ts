import { CallerTurns, STT_FINAL_TIMEOUT_MS, type CallerTurn } from '../../voice/pipeline/caller-turns';
import { soundsUnfinished } from '../../voice/pipeline/turn-settings';
import type { SttStream, Transcript } from '../../voice/speech/stt';

/** A recognizer that records what it was given; the test plays its answers. */
function fakeStt() {
  const log: string[] = [];
  let pushed = 0;
  const stream: SttStream = {
    push: (samples) => {
      pushed += samples.length;
    },
    finalize: () => log.push(`finalize@${pushed}`),
    close: () => Promise.resolve(),
  };
  return { stream, log, pushed: () => pushed };
}

const final = (text: string, speechFinal = true): Transcript => ({
  text,
  isFinal: true,
  speechFinal,
  start: null,
  end: null,
});
const interim = (text: string): Transcript => ({ text, isFinal: false, speechFinal: false, start: null, end: null });
const frame = () => new Int16Array(160);

function setup(stopStrategy: 'transcription' | 'turn_analyzer' = 'transcription') {
  let clock = 1_000_000;
  const stt = fakeStt();
  const turns: CallerTurn[] = [];
  const seen: string[] = [];
  const caller = new CallerTurns(
    stt.stream,
    { stopStrategy, smartTurnStopSeconds: 2, vadStopSeconds: 0.8 },
    {
      onSpeechStarted: () => seen.push('speech'),
      onWords: (count) => seen.push(`words:${count}`),
      onNoise: () => seen.push('noise'),
      onTurn: (turn) => turns.push(turn),
    },
    () => clock,
  );
  return { caller, stt, turns, seen, advance: (ms: number) => (clock += ms) };
}

describe('caller turns', () => {
  afterEach(() => jest.useRealTimers());

  it('sends speech with its pre-roll to speech-to-text, finalizes at the stop, and takes the turn once the final words arrive', () => {
    const { caller, stt, turns, seen, advance } = setup();
    for (let i = 0; i < 50; i++) caller.audio(frame()); // 1 s of silence before speaking
    caller.vad({ type: 'start', at: 1.0 }, 1.2);
    // The pre-roll (0.6 s) goes first, so the words before the detector was sure are heard too.
    expect(stt.pushed()).toBe(4800);
    for (let i = 0; i < 60; i++) caller.audio(frame());
    expect(stt.pushed()).toBe(4800 + 9600);
    caller.transcript(interim('yes I'));
    advance(500);
    caller.vad({ type: 'stop', at: 2.2 }, 3.0);
    expect(stt.log).toEqual(['finalize@14400']);
    caller.audio(frame()); // after the stop, audio is no longer sent
    expect(stt.pushed()).toBe(14400);
    expect(turns).toEqual([]);
    advance(300);
    caller.transcript(final('yes I can do that'));
    expect(turns).toEqual([
      {
        text: 'yes I can do that',
        start: 1.0,
        end: 2.2,
        endOfSpeechAt: 1_000_500,
        finalizedAt: 1_000_500,
        transcribedAt: 1_000_800,
        completedAt: 1_000_800,
        endpointingSeconds: expect.closeTo(0.8, 5),
        heldMs: 0,
      },
    ]);
    expect(seen).toEqual(['speech', 'words:2', 'words:5']);
    expect(caller.active).toBe(false);
  });

  it('keeps speech resumed before the final words arrive in the same turn', () => {
    const { caller, turns } = setup();
    caller.vad({ type: 'start', at: 0 }, 0.2);
    caller.vad({ type: 'stop', at: 1 }, 1.8);
    caller.vad({ type: 'start', at: 2 }, 2.2);
    caller.transcript(final('my number is'));
    expect(turns).toEqual([]);
    caller.vad({ type: 'stop', at: 3 }, 3.8);
    caller.transcript(final('five five five'));
    expect(turns.map((turn) => [turn.text, turn.start, turn.end])).toEqual([['my number is five five five', 0, 3]]);
  });

  it('reports speech without words as noise, not as a turn', () => {
    const { caller, turns, seen } = setup();
    caller.vad({ type: 'start', at: 0 }, 0.2);
    caller.vad({ type: 'stop', at: 0.5 }, 1.3);
    caller.transcript(final(''));
    expect(turns).toEqual([]);
    expect(seen).toEqual(['speech', 'noise']);
  });

  it('goes on without the final words when speech-to-text does not answer in time', () => {
    jest.useFakeTimers();
    const { caller, turns } = setup();
    caller.vad({ type: 'start', at: 0 }, 0.2);
    caller.transcript(final('hello there', false));
    caller.vad({ type: 'stop', at: 1 }, 1.8);
    jest.advanceTimersByTime(STT_FINAL_TIMEOUT_MS - 1);
    expect(turns).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(turns.map((turn) => turn.text)).toEqual(['hello there']);
  });

  it('turn_analyzer: holds an unfinished-sounding turn open for the rest of smart_turn_stop_secs', () => {
    jest.useFakeTimers();
    const { caller, turns } = setup('turn_analyzer');
    caller.vad({ type: 'start', at: 0 }, 0.2);
    caller.vad({ type: 'stop', at: 1 }, 1.8);
    caller.transcript(final('I would like to book a table and'));
    // 2 s in all, 0.8 s of which the detector already waited.
    jest.advanceTimersByTime(1199);
    expect(turns).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(turns.map((turn) => turn.text)).toEqual(['I would like to book a table and']);
  });

  it('turn_analyzer: a caller who goes on within the hold keeps one turn; a finished sentence is taken at once', () => {
    jest.useFakeTimers();
    const { caller, turns } = setup('turn_analyzer');
    caller.vad({ type: 'start', at: 0 }, 0.2);
    caller.vad({ type: 'stop', at: 1 }, 1.8);
    caller.transcript(final('I would like to book a table for'));
    jest.advanceTimersByTime(600);
    caller.vad({ type: 'start', at: 2.4 }, 2.6);
    caller.vad({ type: 'stop', at: 3 }, 3.8);
    caller.transcript(final('two people tonight.'));
    expect(turns.map((turn) => turn.text)).toEqual(['I would like to book a table for two people tonight.']);
  });

  it('tells unfinished from finished sentences', () => {
    expect(soundsUnfinished('I want to')).toBe(true);
    expect(soundsUnfinished('my name is,')).toBe(true);
    expect(soundsUnfinished('um')).toBe(true);
    expect(soundsUnfinished('yes that works')).toBe(false);
    expect(soundsUnfinished('Tuesday and.')).toBe(false);
    expect(soundsUnfinished('')).toBe(false);
  });
});
