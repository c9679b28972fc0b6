import { resolve } from 'node:path';
import type { Payload } from '@temporalio/common';
import { PayloadEncryptionCodec } from '../platform/payload-codec';

/**
 * `node --import tsx bench/without-payload-codec.ts <entry point>`: runs a service's entry point
 * (the API or the worker) with the payload codec passing every payload through unchanged. The
 * benchmarks' baseline for what encrypting Temporal's payloads costs, measured in the same run as
 * the encrypted phase; the service itself has no setting that turns encryption off.
 */
const passThrough = (payloads: Payload[]): Promise<Payload[]> => Promise.resolve(payloads);
PayloadEncryptionCodec.prototype.encode = passThrough;
PayloadEncryptionCodec.prototype.decode = passThrough;

const [entry] = process.argv.splice(2, 1);
if (!entry) throw new Error('usage: without-payload-codec.ts <entry point>');
void import(resolve(entry));
