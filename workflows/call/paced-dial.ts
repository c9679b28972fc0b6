import { ApplicationFailure, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { createCallActivities } from '../../activities/call.activities';
import { ACTIVITY_POLICIES } from '../activity-policies';

type CallActivities = ReturnType<typeof createCallActivities>;

// Dialing: a few tries only; the idempotency key makes a retry after a crash safe. A local
// activity: it runs in the worker that runs the workflow, so the turn it takes is used at once. Its
// summary in the Temporal UI names the provider.
const dialer = (provider: string | undefined) =>
  proxyLocalActivities<CallActivities>({
    ...ACTIVITY_POLICIES.providerDial,
    summary: provider ? `dial via ${provider}` : 'dial',
  });

/** 429s in a row after which the provider is taken to refuse the call. */
const MAX_THROTTLED_DIALS = 20;

/**
 * Dials on the configuration's turn: while the pacing or a provider's 429 says to wait, sleeps on
 * a durable timer (a restarted worker resumes the wait, it does not forget it) and asks again.
 */
export async function dialOnTurn(
  input: { runId: number; workflowId: string; attempt: number },
  provider: string | undefined,
): Promise<string> {
  const { placeCall } = dialer(provider);
  let throttled = 0;
  for (;;) {
    const placed = await placeCall(input);
    if ('providerCallId' in placed) return placed.providerCallId;
    throttled = placed.throttled ? throttled + 1 : 0;
    if (throttled >= MAX_THROTTLED_DIALS) {
      throw ApplicationFailure.nonRetryable(
        `The provider answered 429 to ${throttled} dials in a row`,
        'ProviderThrottled',
      );
    }
    await sleep(placed.waitMs, {
      summary: placed.throttled
        ? `${provider ?? 'provider'} asked to slow down: dial again`
        : 'wait for the pacing turn',
    });
  }
}
