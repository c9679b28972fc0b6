import { maskSecret } from '../../telephony/credentials';
import type { CallWorkflowInput } from '../../workflows/definitions';
import { WEB_PROVIDER } from '../../telephony/providers/web/web-calls';

/**
 * What the Temporal UI's workflow list and page show of a call placed through the API or taken
 * inbound, without opening its input: the other party's number masked as responses mask secrets
 * (a code span, so its `*` are not read as Markdown emphasis; an inbound caller may withhold it),
 * the agent and the attempt. A
 * campaign's calls get theirs from the campaign (workflows/campaign/ui-metadata.ts).
 */
export function callUiMetadata(
  call: { runId: number; agentId: number; otherParty: string | null },
  input: Pick<CallWorkflowInput, 'attempt' | 'direction' | 'provider' | 'maxDurationSeconds' | 'conversation'>,
): { staticSummary: string; staticDetails: string } {
  const number = call.otherParty === null ? 'an unknown number' : `\`${maskSecret(call.otherParty)}\``;
  const inbound = input.direction === 'inbound';
  const who =
    input.provider === WEB_PROVIDER
      ? 'Web call from a browser'
      : inbound
        ? `Inbound call from ${number}`
        : `Call to ${number}`;
  return {
    staticSummary: `${who} · agent ${call.agentId} · run ${call.runId}`,
    staticDetails: [
      `${who}: agent **${call.agentId}**, attempt **${input.attempt}**, no campaign`,
      `Run ${call.runId} via ${input.provider ?? 'its provider'} · at most ${input.maxDurationSeconds} s · ` +
        `${input.conversation} conversation`,
    ].join('\n\n'),
  };
}
