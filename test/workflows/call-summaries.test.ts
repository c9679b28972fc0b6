import type { WorkflowExecutionDescription } from '@temporalio/client';
import request from 'supertest';
import { callUiMetadata } from '../../domain/calls/ui-metadata';
import { DEFAULT_RETRY_CONFIG } from '../../domain/campaigns/settings';
import { maskSecret } from '../../telephony/credentials';
import { callWorkflowId, campaignCallWorkflowId } from '../../workflows/definitions';
import { campaignSettings, insertCampaign, startCampaignWorkflow, useCampaignTestFile } from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';

const { services, taskQueue, bed, withWorker } = useCampaignTestFile('call-summaries');
let org: CallingOrganization;

beforeAll(async () => {
  org = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
});

/** The UI's summary and details of a workflow, as the Temporal client describes it. */
async function uiMetadata(description: WorkflowExecutionDescription) {
  return { summary: (await description.staticSummary()) ?? '', details: (await description.staticDetails()) ?? '' };
}

/** The number's digits without its country code: a full number must not appear even without `+1`. */
const nationalDigits = (number: string): string => number.slice(2);

describe('call workflows in the Temporal UI', () => {
  it("show a campaign call's masked number, contact row, attempt and campaign, never the full number", async () => {
    const numbers = ['+14155550486', '+14155557311'];
    const { campaignId, contactIds } = await insertCampaign(
      services.db.dataSource,
      org,
      numbers.map((phoneNumber) => ({ phoneNumber })),
      campaignSettings({ max_concurrency: 2, retry_config: { ...DEFAULT_RETRY_CONFIG, enabled: false } }),
    );
    const campaign = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    await withWorker(() => campaign.result());

    for (const [index, number] of numbers.entries()) {
      const contactId = contactIds[index] ?? '';
      const child = services.temporal.client.workflow.getHandle(campaignCallWorkflowId(campaignId, contactId, 1));
      const { summary, details } = await uiMetadata(await child.describe());
      expect(summary).toBe(
        `Campaign ${campaignId} · \`${maskSecret(number)}\` · contact ${contactId} (row ${index + 1}) · attempt 1`,
      );
      expect(details).toContain(`Campaign **${campaignId}** calls \`********${number.slice(-4)}\``);
      expect(details).toContain(`contact **${contactId}** (row ${index + 1} of its list), attempt **1**`);
      for (const text of [summary, details]) expect(text).not.toContain(nationalDigits(number));
    }
    // The campaign's own history never held the numbers: the activity that prepares a dial masks them.
    const history = JSON.stringify(await campaign.fetchHistory());
    for (const number of numbers) expect(history).not.toContain(nationalDigits(number));
  });

  it("show a single call's masked number, agent and attempt, never the full number", async () => {
    const number = '+14155550123';
    const res = await request(bed().baseUrl)
      .post(`/api/v1/public/agent/${org.triggerPath}`)
      .set('X-API-Key', org.apiKey)
      .send({ phone_number: number });
    expect(res.status).toBe(200);
    const runId = (res.body as { workflow_run_id: number }).workflow_run_id;
    const call = services.temporal.client.workflow.getHandle(callWorkflowId(runId));
    await withWorker(() => call.result());

    const { summary, details } = await uiMetadata(await call.describe());
    expect(summary).toBe(`Call to \`********0123\` · agent ${org.agent.id} · run ${runId}`);
    expect(details).toContain(`Call to \`********0123\`: agent **${org.agent.id}**, attempt **1**, no campaign`);
    expect(details).toContain(`Run ${runId} via simulator`);
    for (const text of [summary, details]) expect(text).not.toContain(nationalDigits(number));
  });

  it("names an inbound call's caller masked, or says the caller withheld the number", () => {
    const input = { attempt: 1, direction: 'inbound' as const, maxDurationSeconds: 300, conversation: 'live' as const };
    const known = callUiMetadata({ runId: 9, agentId: 4, otherParty: '+14155550123' }, input);
    expect(known.staticSummary).toBe('Inbound call from `********0123` · agent 4 · run 9');
    const withheld = callUiMetadata({ runId: 9, agentId: 4, otherParty: null }, input);
    expect(withheld.staticSummary).toBe('Inbound call from an unknown number · agent 4 · run 9');
  });
});
