import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import * as ts from 'typescript';
import { v2Headers, type SignedDelivery } from '../../domain/webhooks/signature-v2';

const GUIDE = join(__dirname, '..', '..', 'docs', 'guides', 'post-call-webhooks.md');

interface ReceivedWebhook {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}
type Verify = (secret: string, request: ReceivedWebhook, toleranceSeconds?: number) => boolean;

/** The receiver's code of the post-call webhooks guide, compiled and loaded as a reader would paste it. */
function receiverFromGuide(): Verify {
  const blocks = [...readFileSync(GUIDE, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)];
  expect(blocks).toHaveLength(1);
  const source = `${blocks[0]?.[1] ?? ''}\nexports.verify = verifySwitchboardSignature;\n`;
  const { outputText, diagnostics } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, strict: true },
    reportDiagnostics: true,
  });
  expect(diagnostics ?? []).toEqual([]);
  const exports: { verify?: Verify } = {};
  // The sample imports node:crypto only; anything else it asked for would be a mistake in the guide.
  const load = (name: string): unknown => {
    if (name !== 'node:crypto') throw new Error(`the guide's receiver imports ${name}`);
    return jest.requireActual('node:crypto');
  };
  const run = runInThisContext(`(function (require, exports) {\n${outputText}\n})`) as (
    require: (name: string) => unknown,
    exports: { verify?: Verify },
  ) => void;
  run(load, exports);
  if (!exports.verify) throw new Error('the guide defines no verifySwitchboardSignature');
  return exports.verify;
}

describe("the post-call webhooks guide's receiver", () => {
  const secret = 'a signing secret of at least thirty-two characters';
  const key = Buffer.from(secret, 'utf8');
  const url = 'https://hooks.example.com/switchboard?tenant=7';
  const delivery: SignedDelivery = {
    method: 'POST',
    url,
    id: 'run-7/hook',
    timestamp: Math.floor(Date.now() / 1000),
    body: JSON.stringify({ workflow_run_id: 7, call_status: 'completed' }),
  };
  const verify = receiverFromGuide();
  /** What the receiver sees of a delivery Switchboard signed with `keys`. */
  const received = (signed: SignedDelivery, keys: Buffer[] = [key]): ReceivedWebhook => ({
    method: signed.method,
    url,
    headers: v2Headers(keys, signed),
    rawBody: signed.body,
  });

  it('accepts what Switchboard signs', () => {
    expect(verify(secret, received(delivery))).toBe(true);
    expect(verify(secret, received({ ...delivery, method: 'GET', body: '' }))).toBe(true);
  });

  it("accepts either secret's signature during a rotation's overlap, whichever entry is its own", () => {
    const previous = `${secret} (previous)`;
    const request = received(delivery, [key, Buffer.from(previous, 'utf8')]);
    expect(String(request.headers['webhook-signature']).match(/v2,/g)).toHaveLength(2);
    expect(verify(secret, request)).toBe(true);
    expect(verify(previous, request)).toBe(true);
    expect(verify(`${secret}!`, request)).toBe(false);
  });

  it('refuses another body, another secret and an old timestamp', () => {
    expect(verify(secret, { ...received(delivery), rawBody: `${delivery.body} ` })).toBe(false);
    expect(verify(`${secret}!`, received(delivery))).toBe(false);
    expect(verify(secret, received({ ...delivery, timestamp: delivery.timestamp - 301 }))).toBe(false);
  });

  it('refuses a delivery replayed to another endpoint, with another method or under another id', () => {
    const signed = received(delivery);
    expect(verify(secret, { ...signed, url: 'https://hooks.example.com/switchboard?tenant=8' })).toBe(false);
    expect(verify(secret, { ...signed, url: 'https://hooks.example.com/other' })).toBe(false);
    expect(verify(secret, { ...signed, method: 'PUT' })).toBe(false);
    expect(verify(secret, { ...signed, headers: { ...signed.headers, 'webhook-id': 'run-8/hook' } })).toBe(false);
    expect(verify(secret, { ...signed, headers: { ...signed.headers, 'webhook-signature': undefined } })).toBe(false);
  });
});
