import { converseStep, TextParty, type ConversationInput, type ConversationStep } from '../../agent-runtime';
import type { ConversationCheckpoint, TextChatInput } from '../../agent-runtime';

/** Start → talk (extracts `first_name`) → end, as a text chat walks it with the offline policy. */
const input: ConversationInput = {
  runId: 1,
  definition: {
    nodes: [
      { id: 'start', type: 'startCall', data: { prompt: 'Hello {{first_name}}, this is a reminder.' } },
      {
        id: 'talk',
        type: 'agentNode',
        data: {
          prompt: 'Confirm the time.',
          extraction_enabled: true,
          extraction_variables: [{ name: 'first_name', type: 'string' }],
        },
      },
      { id: 'end', type: 'endCall', data: { prompt: 'Goodbye.' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'talk', data: { label: 'Continue', condition: 'answered' } },
      { id: 'e2', source: 'talk', target: 'end', data: { label: 'Done', condition: 'confirmed' } },
    ],
  },
  workflowConfigurations: {},
  templateContextVariables: {},
  initialContext: { first_name: 'Ada' },
  dispositionCodes: [],
  maxDurationSeconds: 300,
  callee: { kind: 'text' },
};

const startedAt = new Date('2026-03-02T15:04:00.000Z');

/** One step, its checkpoint carried through JSON as a workflow's history would carry it. */
async function step(checkpoint: ConversationCheckpoint | undefined, next?: TextChatInput): Promise<ConversationStep> {
  const resume = checkpoint ? (JSON.parse(JSON.stringify(checkpoint)) as ConversationCheckpoint) : undefined;
  return converseStep(input, { party: new TextParty(next, startedAt), ...(resume ? { resume } : {}) });
}

const paused = (result: ConversationStep): ConversationCheckpoint => {
  if (!('paused' in result)) throw new Error('the conversation ended');
  return result.paused;
};

const lines = (transcript: { role: string; text: string }[]) => transcript.map((l) => `${l.role}: ${l.text}`);

describe('the conversation engine, one text chat step at a time', () => {
  it('pauses after each answer, resumes where it stood, and ends at the end node', async () => {
    const opening = paused(await step(undefined));
    expect(opening).toMatchObject({ nodeId: 'start', calleeRepliesInNode: 0, turns: 1, nodePath: ['start'] });
    expect(lines(opening.transcript)).toEqual(['assistant: Hello Ada, this is a reminder.']);

    const second = paused(await step(opening, { text: 'Yes, I answered.' }));
    expect(second).toMatchObject({ nodeId: 'talk', calleeRepliesInNode: 0, nodePath: ['start', 'talk'] });
    expect(lines(second.transcript).slice(1)).toEqual(['user: Yes, I answered.', 'assistant: Confirm the time.']);
    expect(second.usage.totalTokens).toBeGreaterThan(opening.usage.totalTokens);

    const last = await step(second, { text: 'Confirmed.' });
    if (!('ended' in last)) throw new Error('the conversation did not end');
    expect(last.ended).toMatchObject({
      endedBy: 'end_node',
      disposition: 'completed',
      nodePath: ['start', 'talk', 'end'],
      gatheredContext: { first_name: 'Ada' },
    });
    expect(lines(last.ended.transcript).slice(-2)).toEqual(['user: Confirmed.', 'assistant: Goodbye.']);
    expect(last.ended.usage.totalTokens).toBeGreaterThan(second.usage.totalTokens);
  });

  it('answers the same to the same message from the same place', async () => {
    const opening = paused(await step(undefined));
    const once = paused(await step(opening, { text: 'Yes.' }));
    const again = paused(await step(opening, { text: 'Yes.' }));
    expect(lines(again.transcript)).toEqual(lines(once.transcript));
    expect(again.nodeId).toBe(once.nodeId);
  });

  it('ends where it stands when the person leaves or goes quiet, with that node extracted', async () => {
    const talk = paused(await step(paused(await step(undefined)), { text: 'Yes.' }));
    const idle = await step(talk, { ended: 'user_idle' });
    if (!('ended' in idle)) throw new Error('the conversation did not end');
    expect(idle.ended).toMatchObject({
      endedBy: 'user_idle',
      disposition: 'user_idle_max_duration_exceeded',
      gatheredContext: { first_name: 'Ada' },
    });
    expect(idle.ended.transcript).toHaveLength(talk.transcript.length);
    const left = await step(talk, { ended: 'callee_hangup' });
    expect('ended' in left && left.ended.disposition).toBe('user_hangup');
  });
});
