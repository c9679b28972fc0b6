import { transferSummary } from '../../agent-runtime/transfer-summary';

const line = (role: 'user' | 'assistant', text: string) => ({ at: '2026-01-01T00:00:00.000Z', role, text });

describe('transferSummary', () => {
  it("tells the person the caller's last words and the gathered facts", () => {
    const summary = transferSummary(
      [
        line('assistant', 'Hello, how can I help?'),
        line('user', 'I was charged twice'),
        line('assistant', 'I see.'),
        line('user', 'I want a refund for order A-1042.'),
      ],
      { order_id: 'A-1042', reason: 'double charge', details: { nested: true } },
    );
    expect(summary).toBe(
      'I have a caller for you. They said: I was charged twice. I want a refund for order A-1042. ' +
        'order id: A-1042; reason: double charge. Connecting you now.',
    );
  });

  it('stays short whatever was said', () => {
    const summary = transferSummary([line('user', 'word '.repeat(500))], {});
    expect(summary.length).toBeLessThanOrEqual(400);
    expect(transferSummary([], {})).toBe('I have a caller for you. Connecting you now.');
  });
});
