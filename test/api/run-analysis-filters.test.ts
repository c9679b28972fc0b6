import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, insertRun, type CreatedAgent } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

let app: TestServer;
let owner: SignedUp;
let agent: CreatedAgent;
/** Run ids by label. */
const ids: Record<string, number> = {};

/** The annotations an analysis writes, cut down to what the filters read. */
const analysed = (
  tags: string[],
  score: number,
  sentiment: string,
  successful: boolean,
  fields: Record<string, unknown>,
) => ({
  qa_quality: { summary: '…', tags: tags.map((tag) => ({ tag, reason: '' })), score, overall_sentiment: sentiment },
  tags,
  analysis: {
    fields: Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, { type: typeof value, value }])),
    success: { rubric: 'pass_fail', value: successful, successful, reason: '' },
    score,
    sentiment,
    model: 'offline',
  },
});

beforeAll(async () => {
  app = services.server();
  owner = await signUp(app);
  agent = await createAgent(app, owner.token);
  const rows: [string, Record<string, unknown>][] = [
    ['glad', analysed(['order_confirmed'], 9, 'positive', true, { plan: 'premium', budget: 120 })],
    ['stop', analysed(['dead_air', 'asked_to_stop'], 2, 'negative', false, { plan: 'basic', budget: 'unknown' })],
    ['flat', analysed(['dead_air'], 6, 'neutral', true, { plan: 'basic', budget: 40 })],
    ['none', {}],
  ];
  for (const [label, annotations] of rows) {
    const id = await insertRun(services.db.dataSource, {
      workflowId: agent.id,
      definitionId: agent.current_definition_id,
      organizationId: owner.user.organization_id,
    });
    await services.db.dataSource.query('UPDATE runs SET annotations = $2 WHERE id = $1', [
      id,
      JSON.stringify(annotations),
    ]);
    ids[label] = id;
  }
});

/** The labels of the runs both lists answer for these filters (the same on each). */
async function matching(filters: object[]): Promise<string[]> {
  const query = { filters: JSON.stringify(filters), limit: 50 };
  const [perAgent, usage] = await Promise.all([
    request(app).get(`/api/v1/workflow/${agent.id}/runs`).query(query).auth(owner.token, { type: 'bearer' }),
    request(app).get('/api/v1/organizations/usage/runs').query(query).auth(owner.token, { type: 'bearer' }),
  ]);
  expect([perAgent.status, usage.status]).toEqual([200, 200]);
  const labels = (body: { runs: { id: number }[] }) =>
    body.runs.map((run) => Object.keys(ids).find((label) => ids[label] === run.id)).sort();
  expect(labels(usage.body)).toEqual(labels(perAgent.body));
  return labels(perAgent.body) as string[];
}

describe('runs lists filtered on post-call analysis', () => {
  it('tags contain, sentiment, success and score range', async () => {
    expect(await matching([{ attribute: 'analysisTags', type: 'multiSelect', value: { tags: ['dead_air'] } }])).toEqual(
      ['flat', 'stop'],
    );
    expect(
      await matching([
        { attribute: 'analysisTags', type: 'multiSelect', value: { tags: ['dead_air', 'asked_to_stop'] } },
      ]),
    ).toEqual(['stop']);
    expect(
      await matching([
        { attribute: 'analysisSentiment', type: 'multiSelect', value: { sentiments: ['positive', 'neutral'] } },
      ]),
    ).toEqual(['flat', 'glad']);
    expect(await matching([{ attribute: 'analysisSuccess', type: 'radio', value: { successful: false } }])).toEqual([
      'stop',
    ]);
    expect(await matching([{ attribute: 'analysisScore', type: 'numberRange', value: { min: 5, max: 9 } }])).toEqual([
      'flat',
      'glad',
    ]);
  });

  it('typed fields: equals, and a range that skips values of another type', async () => {
    expect(
      await matching([{ attribute: 'analysisField', type: 'analysisField', value: { name: 'plan', equals: 'basic' } }]),
    ).toEqual(['flat', 'stop']);
    expect(
      await matching([{ attribute: 'analysisField', type: 'analysisField', value: { name: 'budget', min: 50 } }]),
    ).toEqual(['glad']);
    expect(
      await matching([
        { attribute: 'analysisField', type: 'analysisField', value: { name: 'budget', max: 1000 } },
        { attribute: 'analysisSuccess', type: 'radio', value: { successful: true } },
      ]),
    ).toEqual(['flat', 'glad']);
  });

  it('a malformed analysis filter is a 422 at its value', async () => {
    const res = await request(app)
      .get(`/api/v1/workflow/${agent.id}/runs`)
      .query({
        filters: JSON.stringify([{ attribute: 'analysisField', type: 'analysisField', value: { name: 'x; DROP' } }]),
      })
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toContain('"filters",0,"value"');
  });
});
