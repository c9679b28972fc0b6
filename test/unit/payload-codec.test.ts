import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { parseConfig } from '../../platform/config';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadEncryptionCodec } from '../../platform/payload-codec';
import { DEVELOPMENT_PAYLOAD_KEY, parsePayloadKeys, payloadKeys } from '../../platform/payload-keys';

const keyA = { id: 'key-a', key: randomBytes(32) };
const keyB = { id: 'key-b', key: randomBytes(32) };
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

/** What a call's history carries: a contact's number, name and words. */
const conversation = {
  phoneNumber: '+14155550123',
  context: { first_name: 'Zebulon', note: 'invoice 7731 overdue' },
  transcript: [{ role: 'user', content: 'My date of birth is the fourth of May' }],
};
const payload = (): Payload => defaultPayloadConverter.toPayload(conversation);

describe('the payload codec', () => {
  it('encrypts the whole payload, metadata included, and names only the key', async () => {
    const [encrypted] = await new PayloadEncryptionCodec([keyA]).encode([payload()]);
    expect(Object.keys(encrypted?.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA]);
    expect(text(encrypted?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted?.metadata?.[KEY_ID_METADATA])).toBe('key-a');
    const stored = text(encrypted?.data);
    for (const secret of ['14155550123', 'Zebulon', '7731', 'date of birth', 'json/plain']) {
      expect(stored).not.toContain(secret);
    }
  });

  it('decodes what it encoded into the same value, each time under a fresh IV', async () => {
    const codec = new PayloadEncryptionCodec([keyA]);
    const [first, second] = await codec.encode([payload(), payload()]);
    expect(Buffer.compare(Buffer.from(first?.data ?? []), Buffer.from(second?.data ?? []))).not.toBe(0);
    const decoded = await codec.decode([first as Payload, second as Payload]);
    expect(decoded.map((one) => defaultPayloadConverter.fromPayload(one))).toEqual([conversation, conversation]);
  });

  it('keeps decoding payloads of a rotated-out key, and encodes with the new first key', async () => {
    const [old] = await new PayloadEncryptionCodec([keyA]).encode([payload()]);
    const rotated = new PayloadEncryptionCodec([keyB, keyA]);
    const [current] = await rotated.encode([payload()]);
    expect(text(current?.metadata?.[KEY_ID_METADATA])).toBe('key-b');
    const decoded = await rotated.decode([old as Payload, current as Payload]);
    expect(decoded.map((one) => defaultPayloadConverter.fromPayload(one))).toEqual([conversation, conversation]);
    // A process still on the old keys cannot read the new key's payloads, and says which key it lacks.
    await expect(new PayloadEncryptionCodec([keyA]).decode([current as Payload])).rejects.toThrow(/"key-b"/);
  });

  it('passes unencrypted payloads (histories from before encryption) through unchanged', async () => {
    const plain = payload();
    expect(await new PayloadEncryptionCodec([keyA]).decode([plain])).toEqual([plain]);
  });

  it('refuses an altered payload, and one whose key id was swapped for another key', async () => {
    const codec = new PayloadEncryptionCodec([keyA, keyB]);
    const [encrypted] = await codec.encode([payload()]);
    const data = Buffer.from(encrypted?.data ?? []);
    data[20] = (data[20] ?? 0) ^ 1;
    await expect(codec.decode([{ ...encrypted, data }])).rejects.toThrow(/authenticate/);
    const relabelled = { ...encrypted, metadata: { ...encrypted?.metadata, [KEY_ID_METADATA]: Buffer.from('key-b') } };
    await expect(codec.decode([relabelled])).rejects.toThrow(/authenticate/);
  });
});

describe('PAYLOAD_ENCRYPTION_KEYS', () => {
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://db/x',
    TEMPORAL_ADDRESS: 'temporal:7233',
    SESSION_SECRET: 's'.repeat(40),
    SECRETS_KEY: 'ab'.repeat(32),
  };

  it('reads id:key entries, hex or base64, the first being the current key', () => {
    const hex = 'cd'.repeat(32);
    const base64 = randomBytes(32).toString('base64');
    expect(parsePayloadKeys(`2026-11:${hex}, 2026-05:${base64}`)).toEqual([
      { id: '2026-11', key: Buffer.from(hex, 'hex') },
      { id: '2026-05', key: Buffer.from(base64, 'base64') },
    ]);
  });

  it.each([
    ['a key without an id', 'cd'.repeat(32)],
    ['a short key', 'k1:abcd'],
    ['an id used twice', `k1:${'cd'.repeat(32)},k1:${'ef'.repeat(32)}`],
    ['an id with a space', `my key:${'cd'.repeat(32)}`],
  ])('refuses %s without echoing it', (_, value) => {
    expect(parsePayloadKeys(value)).toBeNull();
    expect(() => parseConfig({ PAYLOAD_ENCRYPTION_KEYS: value })).toThrow(/PAYLOAD_ENCRYPTION_KEYS: must be id:key/);
    expect(() => parseConfig({ PAYLOAD_ENCRYPTION_KEYS: value })).not.toThrow(value);
  });

  it('is required in production, where the public development key is never used', () => {
    expect(() => parseConfig(production)).toThrow(/PAYLOAD_ENCRYPTION_KEYS: required in production/);
    expect(() => payloadKeys({ NODE_ENV: 'production' })).toThrow(/required in production/);
    const keys = `prod-1:${'cd'.repeat(32)}`;
    expect(payloadKeys(parseConfig({ ...production, PAYLOAD_ENCRYPTION_KEYS: keys }))).toEqual([
      { id: 'prod-1', key: Buffer.from('cd'.repeat(32), 'hex') },
    ]);
  });

  it('defaults to the development key outside production', () => {
    expect(payloadKeys(parseConfig({}))).toEqual([DEVELOPMENT_PAYLOAD_KEY]);
    expect(payloadKeys(parseConfig({ NODE_ENV: 'test' }))).toEqual([DEVELOPMENT_PAYLOAD_KEY]);
  });
});
