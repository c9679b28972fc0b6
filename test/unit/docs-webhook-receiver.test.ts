import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import * as ts from 'typescript';
import { signatureHeader } from '../../activities/webhook/signature';

const GUIDE = join(__dirname, '..', '..', 'docs', 'guides', 'post-call-webhooks.md');

type Verify = (secret: string, rawBody: string, header: string, toleranceSeconds?: number) => boolean;

/** The receiver's code of the post-call webhooks guide, compiled and loaded as a reader would paste it. */
function receiverFromGuide(): Verify {
  const blocks = [...readFileSync(GUIDE, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)];
  expect(blocks).toHaveLength(1);
  const source = `${blocks[0]?.[1] ?? ''}\nexports.verify = verifySwitchboardSignature;\n`;
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, strict: true },
  });
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
  const body = JSON.stringify({ workflow_run_id: 7, call_status: 'completed' });
  const now = Math.floor(Date.now() / 1000);
  const verify = receiverFromGuide();

  it('accepts what Switchboard signs', () => {
    expect(verify(secret, body, signatureHeader(Buffer.from(secret, 'utf8'), body, now))).toBe(true);
  });

  it("accepts either secret's signature during a rotation's overlap, whichever entry is its own", () => {
    const previous = `${secret} (previous)`;
    const header = signatureHeader([Buffer.from(secret, 'utf8'), Buffer.from(previous, 'utf8')], body, now);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verify(secret, body, header)).toBe(true);
    expect(verify(previous, body, header)).toBe(true);
    expect(verify(`${secret}!`, body, header)).toBe(false);
  });

  it('refuses another body, another secret and an old timestamp', () => {
    const header = signatureHeader(Buffer.from(secret, 'utf8'), body, now);
    expect(verify(secret, `${body} `, header)).toBe(false);
    expect(verify(`${secret}!`, body, header)).toBe(false);
    expect(verify(secret, body, signatureHeader(Buffer.from(secret, 'utf8'), body, now - 301))).toBe(false);
  });
});
