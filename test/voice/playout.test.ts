import { Playout } from '../../voice/playout';

function sink() {
  const played: number[] = [];
  let clears = 0;
  return {
    played,
    clears: () => clears,
    sink: { play: (samples: Int16Array) => played.push(samples.length), clear: () => (clears += 1) },
  };
}

const seconds = (length: number) => new Int16Array(8000 * length);
const total = (played: number[]) => played.reduce((sum, length) => sum + length, 0);

describe('playout paced by the caller stream', () => {
  it('sends at once up to the lead in 100 ms chunks, then a chunk whenever the lead has room, and drains when played', async () => {
    const out = sink();
    const playout = new Playout(out.sink, 1600);
    let sentAt: number | null = null;
    playout.enqueue(seconds(1), () => (sentAt = out.played.length));
    // The first 200 ms go out immediately.
    expect(sentAt).toBe(0);
    expect(out.played).toEqual([800, 800]);
    expect(playout.speaking).toBe(true);
    let drained = false;
    void playout.drained().then(() => (drained = true));
    // Each 20 ms the caller stream moves on; a chunk goes out once less than 200 ms waits to play.
    playout.tick(160);
    expect(out.played).toEqual([800, 800, 800]);
    for (let i = 0; i < 4; i++) playout.tick(160);
    expect(out.played).toHaveLength(3);
    playout.tick(160);
    expect(out.played).toHaveLength(4);
    for (let i = 0; i < 34; i++) playout.tick(160);
    expect(total(out.played)).toBe(8000);
    await Promise.resolve();
    expect(drained).toBe(false);
    // Everything sent has played once the caller stream reaches its end.
    for (let i = 0; i < 10; i++) playout.tick(160);
    await Promise.resolve();
    expect(drained).toBe(true);
    expect(playout.speaking).toBe(false);
    expect(playout.seconds).toBe(1);
  });

  it('clears on barge-in: nothing more is sent, the provider is told, waiters are released', async () => {
    const out = sink();
    const playout = new Playout(out.sink, 1600);
    playout.enqueue(seconds(2));
    const drained = playout.drained();
    playout.tick(160);
    playout.clear();
    await drained;
    expect(out.clears()).toBe(1);
    const sent = out.played.length;
    for (let i = 0; i < 20; i++) playout.tick(160);
    expect(out.played).toHaveLength(sent);
    expect(playout.speaking).toBe(false);
    // Nothing was playing: no clear is sent.
    playout.clear();
    expect(out.clears()).toBe(1);
  });

  it('holds audio while paused and carries on where it stopped on resume', () => {
    const out = sink();
    const playout = new Playout(out.sink, 800);
    playout.enqueue(seconds(0.3));
    expect(out.played).toEqual([800]);
    playout.pause();
    for (let i = 0; i < 5; i++) playout.tick(160);
    expect(out.played).toEqual([800]);
    expect(playout.speaking).toBe(true);
    playout.resume();
    expect(out.played).toEqual([800, 800]);
    for (let i = 0; i < 10; i++) playout.tick(160);
    expect(total(out.played)).toBe(2400);
  });

  it('plays chunks in order and reports each one as it starts', () => {
    const out = sink();
    const playout = new Playout(out.sink, 160);
    const started: string[] = [];
    playout.enqueue(new Int16Array(1000), () => started.push('a'));
    playout.enqueue(new Int16Array(100), () => started.push('b'));
    expect(started).toEqual(['a']);
    for (let i = 0; i < 5; i++) playout.tick(160);
    expect(started).toEqual(['a']);
    playout.tick(160);
    expect(started).toEqual(['a', 'b']);
    expect(out.played).toEqual([800, 200, 100]);
  });
});
