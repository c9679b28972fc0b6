import { TextParty } from '../../agent-runtime/text-party';

/** A party whose reply pieces are kept, for one step after the person's message. */
const partyWithPieces = () => {
  const pieces: string[] = [];
  const party = new TextParty(
    { text: 'Hi' },
    new Date(0),
    () => new Date(0),
    (text) => pieces.push(text),
  );
  return { party, pieces };
};

describe("a text chat's reply handed over piece by piece", () => {
  it('relays streamed tokens once, and keeps the whole text as the line', async () => {
    const { party, pieces } = partyWithPieces();
    const reply = party.reply();
    ['Yes, ', 'tomorrow ', 'at ten.'].forEach((token) => reply.token?.(token));
    reply.sentence('Yes, tomorrow at ten.');
    expect(pieces).toEqual(['Yes, ', 'tomorrow ', 'at ten.']);
    expect((await reply.finish()).line).toMatchObject({ role: 'assistant', text: 'Yes, tomorrow at ten.' });
  });

  it('cuts text that comes whole into words, and joins parts and lines as the reply does', async () => {
    const { party, pieces } = partyWithPieces();
    const first = party.reply();
    first.sentence('Hello Ada.');
    first.token?.('Your visit ');
    first.token?.('is at ten.');
    first.sentence('Your visit is at ten.');
    first.sentence('Good bye.');
    expect((await first.finish()).line?.text).toBe('Hello Ada. Your visit is at ten. Good bye.');
    const second = party.reply();
    second.sentence('Anything else?');
    expect(pieces.join('')).toBe('Hello Ada. Your visit is at ten. Good bye.\nAnything else?');
    expect(pieces.slice(0, 3)).toEqual(['Hello ', 'Ada.', ' ']);
  });

  it('hands nothing over without a reader', async () => {
    const party = new TextParty({ text: 'Hi' }, new Date(0));
    const reply = party.reply();
    expect('token' in reply).toBe(false);
    reply.sentence('Hello.');
    expect((await reply.finish()).line?.text).toBe('Hello.');
  });
});
