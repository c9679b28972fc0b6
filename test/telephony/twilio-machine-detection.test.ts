import { MockActivityEnvironment } from '@temporalio/testing';
import request from 'supertest';
import { createActivities } from '../../activities';
import { converse } from '../../agent-runtime';
import { Secrets } from '../../telephony/secrets';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { insertContactSource } from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { FakeProviderServer } from './helpers/fake-provider-server';

const services = useTestServices();
let app: TestServer;
let org: CallingOrganization;
let twilio: FakeProviderServer;
let configurationId: number;
let sourceId: string;

const CALL_SID = 'CAbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY });
  org = await callingOrganization(app);
  twilio = await FakeProviderServer.start();
  const configuration = await createTelephonyConfig(app, org.owner.token, {
    provider: 'twilio',
    account_sid: 'ACbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    auth_token: 'twilio_auth_token_5678',
    amd_enabled: false,
  });
  configurationId = configuration.id;
  // Twilio's default pace (one dial a second) would hold the dials of these tests back.
  const paced = await request(app)
    .put(`/api/v1/organizations/telephony-configs/${configurationId}`)
    .auth(org.owner.token, { type: 'bearer' })
    .send({ calls_per_second: 1000 });
  expect(paced.status).toBe(200);
  await createPhoneNumber(app, org.owner.token, configurationId, { address: '+14155550160' });
  sourceId = await insertContactSource(services.db.dataSource, org.owner.user.organization_id, [
    { phone_number: '+14155551001', first_name: 'Ada' },
  ]);
});
afterAll(() => twilio.close());

/** The dial activity as the worker builds it, with Twilio's API at the local fake. */
function placeCall() {
  const { placeCall: dial } = createActivities({
    dataSource: services.db.dataSource,
    workerIdentity: 'twilio-amd-tests',
    calls: {
      secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
      settings: {
        publicBaseUrl: 'https://sb.example.com',
        telephonyApiBaseUrl: twilio.url,
        pricePerMinuteUsd: 0,
        pricePer1kTokensUsd: 0,
      },
      converse,
      temporal: services.temporal.client,
    },
  });
  if (!dial) throw new Error('the worker has no call activities');
  // As a worker runs it: the dial emits the organization's call events from its activity context.
  return (input: Parameters<typeof dial>[0]) => new MockActivityEnvironment().run(dial, input);
}

/** A campaign through the API with this voicemail action, and a run of it to dial through Twilio. */
async function campaignRun(voicemailAction: string | null): Promise<number> {
  let campaignId: number | null = null;
  if (voicemailAction) {
    const created = await request(app)
      .post('/api/v1/campaign/create')
      .auth(org.owner.token, { type: 'bearer' })
      .send({
        name: `AMD ${voicemailAction}`,
        workflow_id: org.agent.id,
        source_type: 'csv',
        source_id: sourceId,
        telephony_configuration_id: configurationId,
        voicemail_action: voicemailAction,
      });
    expect(created.status).toBe(201);
    campaignId = (created.body as { id: number }).id;
  }
  const [run] = await services.db.dataSource.query<{ id: number }[]>(
    `INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, call_type, campaign_id,
                       telephony_configuration_id, called_number, caller_number)
     SELECT a.organization_id, a.id, a.current_definition_id, 'amd', 'twilio', 'outbound', $2, $3,
            '+14155551001', '+14155550160'
       FROM agents a WHERE a.id = $1
     RETURNING id`,
    [org.agent.id, campaignId, configurationId],
  );
  if (!run) throw new Error('run insert returned nothing');
  return run.id;
}

async function dialForm(voicemailAction: string | null): Promise<Record<string, string>> {
  twilio.reset();
  twilio.answer({ status: 201, body: { sid: CALL_SID, status: 'queued' } });
  const runId = await campaignRun(voicemailAction);
  await expect(placeCall()({ runId, workflowId: `amd-${runId}`, attempt: 1 })).resolves.toEqual({
    providerCallId: CALL_SID,
  });
  return Object.fromEntries(new URLSearchParams(twilio.onlyRequest().body));
}

describe("a Twilio dial and its campaign's voicemail_action", () => {
  it("asks for detection of the greeting's end when the campaign leaves a message", async () => {
    const form = await dialForm('leave_message');
    expect(form).toMatchObject({
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallbackMethod: 'POST',
    });
    expect(form.AsyncAmdStatusCallback).toBe(form.StatusCallback);
  });

  it.each(['hang_up', 'retry_later', null])(
    'asks for no detection with %s and amd_enabled off (Twilio bills it)',
    async (voicemailAction) => {
      const form = await dialForm(voicemailAction);
      expect(form.MachineDetection).toBeUndefined();
      expect(form.AsyncAmd).toBeUndefined();
    },
  );
});
