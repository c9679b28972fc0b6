import {
  CAMPAIGN_WAIT,
  campaignAttempts,
  campaignRow,
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
  useCampaignTestFile,
} from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';
import { waitFor } from '../helpers/wait-for';

const { services, taskQueue, bed, createWorker } = useCampaignTestFile('campaign-voicemail');
let org: CallingOrganization;

const MESSAGE = 'Hi {{first_name}}, this is Acme Dental about your appointment. Please call us back.';

beforeAll(async () => {
  org = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
  await services.db.dataSource.query(
    `UPDATE agent_versions SET workflow_configurations = workflow_configurations || $2::jsonb
      WHERE id = (SELECT current_definition_id FROM agents WHERE id = $1)`,
    [org.agent.id, JSON.stringify({ voicemail_message: MESSAGE })],
  );
});

// The simulator's voicemail number (a machine answers and beeps), and a person.
const CONTACTS = [
  { phoneNumber: '+14155550600', context: { first_name: 'Grace' } },
  { phoneNumber: '+14155551001', context: { first_name: 'Ada' } },
];

/** Runs a campaign over CONTACTS with this voicemail action; its runs by number. */
async function runCampaign(voicemailAction: string) {
  const settings = campaignSettings({
    max_concurrency: 2,
    retry_config: {
      enabled: true,
      max_retries: 1,
      retry_delay_seconds: 1,
      retry_on_busy: true,
      retry_on_no_answer: true,
      retry_on_voicemail: true,
    },
  });
  const { campaignId } = await insertCampaign(services.db.dataSource, org, CONTACTS, settings);
  await services.db.dataSource.query(`UPDATE campaigns SET voicemail_action = $2 WHERE id = $1`, [
    campaignId,
    voicemailAction,
  ]);
  await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
  const worker = await createWorker();
  await worker.runUntil(
    waitFor(
      'the campaign to complete',
      async () => (await campaignRow(services.db.dataSource, campaignId)).state === 'completed',
      CAMPAIGN_WAIT,
    ),
  );
  const runs = await services.db.dataSource.query<
    {
      called_number: string;
      disposition: string;
      gathered_context: Record<string, unknown>;
      logs: Record<string, unknown>;
    }[]
  >(`SELECT called_number, disposition, gathered_context, logs FROM runs WHERE campaign_id = $1 ORDER BY id`, [
    campaignId,
  ]);
  const dials = await services.db.dataSource.query<{ to_address: string; hung_up_at: Date | null }[]>(
    `SELECT to_address, hung_up_at FROM simulator_calls WHERE split_part(idempotency_key, '/', 1) = $1`,
    [`campaign-${campaignId}`],
  );
  return { campaignId, runs, dials, attempts: await campaignAttempts(services.db.dataSource, campaignId) };
}

describe('voicemail', () => {
  it('leaves the rendered message after the beep: disposition voicemail_left, not retried', async () => {
    const { runs, attempts, dials } = await runCampaign('leave_message');
    const machine = runs.filter((run) => run.called_number === '+14155550600');
    expect(machine).toHaveLength(1);
    const text = 'Hi Grace, this is Acme Dental about your appointment. Please call us back.';
    expect(machine[0]).toMatchObject({
      disposition: 'voicemail_left',
      gathered_context: {
        call_status: 'voicemail',
        mapped_call_disposition: 'voicemail_left',
        voicemail_message: text,
      },
      logs: { transcript: [expect.objectContaining({ role: 'assistant', text })] },
    });
    // The agent hung up once its message was spoken, before the box would have.
    expect(dials.find((dial) => dial.to_address === '+14155550600')?.hung_up_at).toBeInstanceOf(Date);
    expect(attempts.map((attempt) => [attempt.phone_number, attempt.outcome])).toEqual([
      ['+14155550600', 'voicemail'],
      ['+14155551001', 'completed'],
    ]);
  }, 90_000);

  it('hang_up: hangs up on the machine at once and does not retry', async () => {
    const { runs, attempts } = await runCampaign('hang_up');
    const machine = runs.filter((run) => run.called_number === '+14155550600');
    expect(machine.map((run) => run.disposition)).toEqual(['voicemail']);
    expect(machine[0]?.gathered_context).not.toHaveProperty('voicemail_message');
    expect(attempts.filter((attempt) => attempt.phone_number === '+14155550600')).toHaveLength(1);
  }, 90_000);

  it('retry_later: hangs up and retries as retry_on_voicemail says', async () => {
    const { runs, attempts } = await runCampaign('retry_later');
    const machine = runs.filter((run) => run.called_number === '+14155550600');
    expect(machine.map((run) => run.disposition)).toEqual(['voicemail', 'voicemail']);
    expect(
      attempts.filter((attempt) => attempt.phone_number === '+14155550600').map((attempt) => attempt.outcome),
    ).toEqual(['voicemail', 'voicemail']);
  }, 90_000);
});
