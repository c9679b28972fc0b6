import { converse, type ConversationInput } from '../../agent-runtime';
import { isOptOutRequest, OPT_OUT_CLOSING } from '../../agent-runtime/opt-out';

const node = (id: string, type: string, prompt: string, data: Record<string, unknown> = {}) => ({
  id,
  type,
  data: { name: id, prompt, ...data },
});
const edge = (source: string, target: string, label: string, condition: string) => ({
  id: `${source}-${target}`,
  source,
  target,
  data: { label, condition },
});

const input = (definition: object, calledNumber: string): ConversationInput => ({
  runId: 1,
  definition: definition as Record<string, unknown>,
  workflowConfigurations: {},
  templateContextVariables: {},
  initialContext: { first_name: 'Alice', called_number: calledNumber },
  dispositionCodes: [],
  maxDurationSeconds: 300,
  callee: { kind: 'simulated', talkSeconds: 120 },
});

const now = () => new Date('2026-01-01T00:00:00.000Z');

describe('opt-out phrases', () => {
  it.each([
    'Please stop calling me.',
    'Remove me from your list, thanks',
    'Do not call me again!',
    "Don't call this number anymore",
    'Take my number off your calling list',
    'Put me on your do-not-call list',
    'STOP CALLING ME',
    'I’d like you to never call me again',
  ])('recognizes %j', (text) => {
    expect(isOptOutRequest(text)).toBe(true);
  });

  it.each([
    'Yes, that works for me.',
    "Please don't stop calling me, I like the reminders",
    'Call me again tomorrow',
    'I stopped calling my bank',
  ])('does not take %j for an opt-out', (text) => {
    expect(isOptOutRequest(text)).toBe(false);
  });
});

describe('opt-out in a simulated conversation (offline policy)', () => {
  it('takes the edge to the opt-out end node when the callee asks not to be called', async () => {
    const definition = {
      nodes: [
        node('start', 'startCall', 'Hello {{first_name}}, this is a reminder call.'),
        node('done', 'endCall', 'Thank you, goodbye.'),
        node('optout', 'endCall', 'Sorry to bother you; you will not be called again.', { opt_out: true }),
      ],
      edges: [
        edge('start', 'done', 'Confirmed', 'The person confirmed'),
        edge('start', 'optout', 'Opt out', 'The person asks not to be called again'),
      ],
    };
    const result = await converse(input(definition, '+14155550688'), { now });
    expect(result.optOut).toBe('phrase');
    expect(result.nodePath).toEqual(['start', 'optout']);
    expect(result.disposition).toBe('opt_out');
    expect(result.transcript.map((line) => line.text)).toContain(
      'Please stop calling me and remove me from your list.',
    );
  });

  it('ends the call itself when the graph has no opt-out end, and a normal callee is no opt-out', async () => {
    const definition = {
      nodes: [
        node('start', 'startCall', 'Hello {{first_name}}.'),
        node('talk', 'agentNode', 'Tell them about the offer.'),
        node('end', 'endCall', 'Goodbye.'),
      ],
      edges: [edge('start', 'talk', 'Continue', 'Answered'), edge('talk', 'end', 'Done', 'Finished')],
    };
    const optedOut = await converse(input(definition, '+14155550688'), { now });
    expect(optedOut.optOut).toBe('phrase');
    expect(optedOut.transcript.at(-1)?.text).toBe(OPT_OUT_CLOSING);
    expect(optedOut.nodePath).toEqual(['start']);
    expect(optedOut.endedBy).toBe('end_node');

    const normal = await converse(input(definition, '+14155550123'), { now });
    expect(normal.optOut).toBeUndefined();
    expect(normal.nodePath).toEqual(['start', 'talk', 'end']);
  });

  it('marks a conversation that reaches an opt-out end node by the graph alone', async () => {
    const definition = {
      nodes: [
        node('start', 'startCall', 'Hello.'),
        node('optout', 'endCall', 'You will not be called again.', { opt_out: true }),
      ],
      edges: [edge('start', 'optout', 'Opt out', 'Anything')],
    };
    const result = await converse(input(definition, '+14155550123'), { now });
    expect(result.optOut).toBe('node');
  });
});
