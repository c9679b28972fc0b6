import { credentialHeaders, type OpenCredential } from '../../domain/credentials/credential-types';

const credential = (fields: Pick<OpenCredential, 'credential_type' | 'credential_data'>) =>
  ({ uuid: '0f6f1c52-7d0e-4f3e-9a43-2b8f0c9e5d11', name: 'Key', ...fields }) as OpenCredential;

describe('credentialHeaders', () => {
  it('turns each type into the headers that authenticate with it', () => {
    expect(
      credentialHeaders(
        credential({ credential_type: 'api_key', credential_data: { header_name: 'X-Api-Token', api_key: 'k-1' } }),
      ),
    ).toEqual({ 'X-Api-Token': 'k-1' });
    expect(
      credentialHeaders(credential({ credential_type: 'bearer_token', credential_data: { token: 't-2' } })),
    ).toEqual({
      Authorization: 'Bearer t-2',
    });
    expect(
      credentialHeaders(
        credential({ credential_type: 'basic_auth', credential_data: { username: 'ops', password: 'pä:ss' } }),
      ),
    ).toEqual({ Authorization: `Basic ${Buffer.from('ops:pä:ss', 'utf8').toString('base64')}` });
    expect(
      credentialHeaders(
        credential({
          credential_type: 'custom_header',
          credential_data: { header_name: 'X-Shop', header_value: 'v-3' },
        }),
      ),
    ).toEqual({ 'X-Shop': 'v-3' });
  });
});
