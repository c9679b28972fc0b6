import { SequenceReorder } from '../../telephony/providers/telnyx/media-reorder';

describe('SequenceReorder (Telnyx frames out of order)', () => {
  const collect = (window = 16) => {
    const out: number[] = [];
    return { out, reorder: new SequenceReorder<number>((n) => out.push(n), 1, window) };
  };

  it('delivers in order, holding a frame until the one before it arrives', () => {
    const { out, reorder } = collect();
    for (const n of [2, 1, 4, 3, 5]) reorder.push(n, n);
    expect(out).toEqual([1, 2, 3, 4, 5]);
  });

  it('drops repeated and too-late frames', () => {
    const { out, reorder } = collect();
    for (const n of [1, 1, 2, 1]) reorder.push(n, n);
    expect(out).toEqual([1, 2]);
  });

  it('gives up on a gap once more than the window is held, and flushes what is held at the end', () => {
    const { out, reorder } = collect(3);
    for (const n of [1, 3, 4, 5]) reorder.push(n, n);
    expect(out).toEqual([1]);
    reorder.push(6, 6);
    expect(out).toEqual([1, 3, 4, 5, 6]);
    // The lost frame turning up after all is too late.
    reorder.push(2, 2);
    reorder.push(9, 9);
    reorder.push(8, 8);
    reorder.flush();
    expect(out).toEqual([1, 3, 4, 5, 6, 8, 9]);
  });
});
