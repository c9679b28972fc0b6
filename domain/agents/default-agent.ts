import type { AgentGraph } from './agent-graph';

export interface AgentBrief {
  use_case: string;
  activity_description: string;
  call_type: 'inbound' | 'outbound';
}

const clip = (text: string, length: number) => (text.length <= length ? text : `${text.slice(0, length - 1)}…`);

/**
 * The agent `create/template` makes when no language model is configured: start → conversation →
 * end, with the two texts as its prompts. Always valid, and the same for the same input.
 */
export function defaultAgent({ use_case, activity_description, call_type }: AgentBrief): {
  name: string;
  definition: AgentGraph;
} {
  const opening =
    call_type === 'outbound'
      ? 'You are calling the person on behalf of the business. Introduce yourself and say why you are calling.'
      : 'You are answering an incoming call. Greet the caller and ask how you can help.';
  const shared = {
    allow_interrupt: false,
    add_global_prompt: true,
    extraction_enabled: false,
    extraction_variables: [],
  };
  return {
    name: clip(use_case, 255),
    definition: {
      nodes: [
        {
          id: 'start',
          type: 'startCall',
          position: { x: 0, y: 0 },
          data: {
            ...shared,
            name: 'Start',
            prompt: `${opening}\nPurpose of the call: ${use_case}`,
            greeting_type: 'text',
            delayed_start: false,
            delayed_start_duration: 2,
            pre_call_fetch_mode: 'disabled',
          },
        },
        {
          id: 'conversation',
          type: 'agentNode',
          position: { x: 0, y: 200 },
          data: { ...shared, name: 'Conversation', prompt: activity_description },
        },
        {
          id: 'end',
          type: 'endCall',
          position: { x: 0, y: 400 },
          data: { ...shared, name: 'End', prompt: 'Thank the person, say goodbye politely and end the call.' },
        },
      ],
      edges: [
        {
          id: 'start-conversation',
          source: 'start',
          target: 'conversation',
          data: { label: 'Begin', condition: 'The person is on the line and has responded to the introduction.' },
        },
        {
          id: 'conversation-end',
          source: 'conversation',
          target: 'end',
          data: {
            label: 'Finish',
            condition: 'The task is done, or the person wants to end the call.',
          },
        },
      ],
    },
  };
}
