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

const frames = (seconds: number) => new Int16Array(8000 * seconds);

describe('playout paced by the caller stream', () => {
  it('sends at once up to the lead, then a frame per caller frame, and drains when played', async () => {
    const out = sink();
    const playout = new Playout(out.sink, 1600);
    let sentAt: number | null = null;
    playout.enqueue(frames(1), () => (sentAt = out.played.length));
    // The first 200 ms go out immediately, in 20 ms frames.
    expect(sentAt).toBe(0);
    expect(out.played).toEqual(Array(10).fill(160));
    expect(playout.speaking).toBe(true);
    let drained = false;
    void playout.drained().then(() => (drained = true));
    for (let i = 0; i < 40; i++) playout.tick(160);
    expect(out.played).toHaveLength(50);
    await Promise.resolve();
    expect(drained).toBe(false);
    // The last frame was sent 200 ms ahead of the clock: it has played 200 ms later.
    for (let i = 0; i < 10; i++) playout.tick(160);
    await Promise.resolve();
    expect(drained).toBe(true);
    expect(playout.speaking).toBe(false);
    expect(playout.seconds).toBe(1);
  });

  it('clears on barge-in: nothing more is sent, the provider is told, waiters are released', async () => {
    const out = sink();
    const playout = new Playout(out.sink, 1600);
    playout.enqueue(frames(2));
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
    const playout = new Playout(out.sink, 320);
    playout.enqueue(frames(0.2));
    expect(out.played).toHaveLength(2);
    playout.pause();
    for (let i = 0; i < 5; i++) playout.tick(160);
    expect(out.played).toHaveLength(2);
    expect(playout.speaking).toBe(true);
    playout.resume();
    expect(out.played).toHaveLength(4);
    for (let i = 0; i < 6; i++) playout.tick(160);
    expect(out.played.reduce((a, b) => a + b, 0)).toBe(1600);
  });

  it('plays chunks in order and reports each one as it starts', () => {
    const out = sink();
    const playout = new Playout(out.sink, 160);
    const started: string[] = [];
    playout.enqueue(new Int16Array(200), () => started.push('a'));
    playout.enqueue(new Int16Array(100), () => started.push('b'));
    expect(started).toEqual(['a']);
    playout.tick(160);
    expect(started).toEqual(['a', 'b']);
    expect(out.played).toEqual([160, 40, 100]);
  });
});
