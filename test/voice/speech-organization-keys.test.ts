import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { parseConfig } from '../../platform/config';
import { Secrets } from '../../telephony/secrets';
import { CartesiaTts } from '../../voice/speech/cartesia-tts';
import { DeepgramStt } from '../../voice/speech/deepgram-stt';
import { SpeechProviderError } from '../../voice/speech/errors';
import { loadOrganizationSpeechKeys } from '../../voice/speech/organization-keys';
import { selectSpeech } from '../../voice/speech/select';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

let app: TestServer;
beforeAll(() => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY });
});
const store = async (org: SignedUp, provider: string, apiKey: string) => {
  const res = await request(app)
    .put(`/api/v1/organizations/speech-credentials/${provider}`)
    .auth(org.token, { type: 'bearer' })
    .send({ api_key: apiKey });
  if (res.status !== 201) throw new Error(`storing a speech key answered ${res.status}: ${JSON.stringify(res.body)}`);
};
const load = (org: SignedUp, using = secrets) =>
  loadOrganizationSpeechKeys(services.db.dataSource, using, org.user.organization_id);

describe('loadOrganizationSpeechKeys', () => {
  it("decrypts the organization's keys, and only its own", async () => {
    const a = await signUp(app);
    const b = await signUp(app);
    await store(a, 'deepgram', 'a-deepgram-key');
    await store(a, 'cartesia', 'a-cartesia-key');
    await store(b, 'deepgram', 'b-deepgram-key');

    expect(await load(a)).toEqual({ deepgram: 'a-deepgram-key', cartesia: 'a-cartesia-key' });
    expect(await load(b)).toEqual({ deepgram: 'b-deepgram-key' });
    expect(await load(await signUp(app))).toEqual({});
  });

  it('feeds selectSpeech, which then offers the providers the organization has keys for', async () => {
    const org = await signUp(app);
    await store(org, 'deepgram', 'org-deepgram-key');
    await store(org, 'cartesia', 'org-cartesia-key');
    const selection = selectSpeech({}, parseConfig({ NODE_ENV: 'test' }), await load(org));
    expect(selection.stt).toBeInstanceOf(DeepgramStt);
    expect(selection.tts).toBeInstanceOf(CartesiaTts);
  });

  it('fails with a configuration error when a key cannot be decrypted (another SECRETS_KEY)', async () => {
    const org = await signUp(app);
    await store(org, 'openai', 'sk-org-openai');
    const error = await load(org, new Secrets(randomBytes(32))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SpeechProviderError);
    expect(error).toMatchObject({
      provider: 'openai',
      kind: 'configuration',
      message: "openai: the organization's API key cannot be decrypted (was SECRETS_KEY changed?)",
    });
  });
});
