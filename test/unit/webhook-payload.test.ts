import { createHmac } from 'node:crypto';
import { renderPayload, type PayloadContext } from '../../domain/webhooks/payload';
import { signatureHeader, verifySignatureHeader } from '../../domain/webhooks/signature';

const context: PayloadContext = {
  initialContext: { first_name: 'Ada', customer: { id: 'c-9' } },
  gatheredContext: { call_status: 'completed', interested: true, age: 42 },
  run: {
    workflow_run_id: 17,
    call_status: 'completed',
    call_duration_seconds: 65,
    transcript_url: '/api/v1/workflow/3/runs/17/transcript',
    recording_url: null,
    cost_info: { call_duration_seconds: 65, charge_usd: 0.07 },
    annotations: {},
  },
};

describe('renderPayload', () => {
  it('renders every string of the template, nested objects and arrays included', () => {
    const rendered = renderPayload(
      {
        greeting: 'Call for {{initial_context.first_name}} ({{customer.id}}) ended: {{call_status}}',
        nested: { list: ['{{gathered_context.call_status}}', 'run {{workflow_run_id}}'] },
        missing: '{{gathered_context.email | none given}}',
        constant: 7,
      },
      context,
    );
    expect(rendered).toEqual({
      greeting: 'Call for Ada (c-9) ended: completed',
      nested: { list: ['completed', 'run 17'] },
      missing: 'none given',
      constant: 7,
    });
  });

  it('keeps the JSON type of a value that is one placeholder', () => {
    expect(
      renderPayload(
        {
          run_id: '{{workflow_run_id}}',
          seconds: '{{cost_info.call_duration_seconds}}',
          interested: '{{gathered_context.interested}}',
          customer: '{{initial_context.customer}}',
          recording: '{{recording_url}}',
          transcript: '{{transcript_url}}',
        },
        context,
      ),
    ).toEqual({
      run_id: 17,
      seconds: 65,
      interested: true,
      customer: { id: 'c-9' },
      recording: '',
      transcript: '/api/v1/workflow/3/runs/17/transcript',
    });
  });

  it('gives the run fields precedence over initial_context keys of the same name', () => {
    const shadowed = { ...context, initialContext: { ...context.initialContext, workflow_run_id: 'forged' } };
    expect(renderPayload({ x: '{{workflow_run_id}}', y: 'run {{workflow_run_id}}' }, shadowed)).toEqual({
      x: 17,
      y: 'run 17',
    });
  });
});

describe('signature header', () => {
  const key = Buffer.from('a-webhook-signing-secret-of-32-characters', 'utf8');
  const body = '{"run":17,"name":"Ada"}';

  it('is t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    const expected = createHmac('sha256', key).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(key, body, 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('verifies the exact body within the tolerance, and nothing else', () => {
    const now = 1_700_000_000_000;
    const header = signatureHeader(key, body, now / 1000);
    expect(verifySignatureHeader(key, body, header, { now })).toBe(true);
    expect(verifySignatureHeader(key, `${body} `, header, { now })).toBe(false);
    expect(verifySignatureHeader(Buffer.from('another key'), body, header, { now })).toBe(false);
    expect(verifySignatureHeader(key, body, header, { now: now + 301_000 })).toBe(false);
    expect(verifySignatureHeader(key, body, 'garbage', { now })).toBe(false);
  });
});
