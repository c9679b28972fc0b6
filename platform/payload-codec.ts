import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { payloadKeys, type PayloadKey } from './payload-keys';

/** The `encoding` of an encrypted payload: Temporal's own converters never produce it. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata naming the key a payload was encrypted with, so keys can rotate. */
export const KEY_ID_METADATA = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const text = new TextDecoder();

/**
 * Encrypts every payload the Temporal server stores (inputs, results, signals, updates, queries,
 * memos, failure details) with AES-256-GCM under the current key: the whole original payload,
 * metadata included, becomes the ciphertext, and the key id (also the additional authenticated
 * data) is the only thing left readable. Decoding accepts every configured key and passes
 * unencrypted payloads (histories from before encryption) through unchanged.
 */
export class PayloadEncryptionCodec implements PayloadCodec {
  private readonly current: PayloadKey;
  private readonly byId: ReadonlyMap<string, Buffer>;

  constructor(keys: readonly PayloadKey[]) {
    const [current] = keys;
    if (!current) throw new Error('The payload codec needs at least one key');
    this.current = current;
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the interface is asynchronous
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the interface is asynchronous
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.decrypt(payload));
  }

  /** `encode` of one payload, synchronously (the cipher is). */
  encrypt(payload: Payload): Payload {
    const { id, key } = this.current;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(utf8.encode(id));
    const plaintext = temporal.api.common.v1.Payload.encode(payload).finish();
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(id) },
      data: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]),
    };
  }

  /** `decode` of one payload, synchronously: for code that reads stored histories. */
  decrypt(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (!encoding || text.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes ? text.decode(idBytes) : '';
    const key = this.byId.get(id);
    if (!key) throw new Error(`Payload encrypted with key "${id}", which is not in PAYLOAD_ENCRYPTION_KEYS`);
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) throw new Error('Encrypted payload is truncated');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAAD(utf8.encode(id));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    const plaintext = Buffer.concat([
      decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return temporal.api.common.v1.Payload.decode(plaintext);
  }
}

/** The failure converter every workflow bundle is built with (`failureConverterPath`). */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * The data converter of every Temporal client, worker and replayer of the service: payloads are
 * encrypted by the SDK outside the workflow sandbox, so workflow code is unchanged; failures carry
 * their message and stack trace in a payload, so those are encrypted too.
 */
export const temporalDataConverter = (config: Parameters<typeof payloadKeys>[0]): DataConverter => ({
  payloadCodecs: [new PayloadEncryptionCodec(payloadKeys(config))],
  failureConverterPath: FAILURE_CONVERTER_PATH,
});
