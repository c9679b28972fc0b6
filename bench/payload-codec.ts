import { randomBytes } from 'node:crypto';
import { cpuUsage } from 'node:process';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { PayloadEncryptionCodec } from '../platform/payload-codec';
import { say } from './helpers';

/**
 * `npm run bench:codec`: CPU time of the payload codec alone, per payload, encrypt and decrypt, for
 * the sizes a call's and a campaign's histories hold. The process's own CPU time is measured, so
 * other load on the machine slows the run but changes the figures little.
 */

const ROUNDS = Number(process.env.BENCH_CODEC_ROUNDS ?? 20_000);

/** JSON values of about `bytes` bytes, shaped like a call's data (words in short strings). */
const valueOf = (bytes: number) => ({
  runId: 1234567,
  context: { first_name: 'Ada', called_number: '+14155550123' },
  turns: Array.from({ length: Math.max(1, Math.round(bytes / 60)) }, (_, index) => ({
    role: index % 2 ? 'user' : 'assistant',
    content: 'Thanks, I can help you with that today.',
  })),
});

const sizes: [string, number][] = [
  ['a signal (call status)', 100],
  ['a call input or outcome', 1_000],
  ['a transcript', 10_000],
  ['a campaign state', 100_000],
];

const cpuMicros = (): number => {
  const { user, system } = cpuUsage();
  return user + system;
};

function measure(codec: PayloadEncryptionCodec, payload: Payload, rounds: number): { encode: number; decode: number } {
  const encrypted: Payload[] = [];
  const startEncode = cpuMicros();
  for (let i = 0; i < rounds; i += 1) encrypted.push(codec.encrypt(payload));
  const encode = (cpuMicros() - startEncode) / rounds;
  const startDecode = cpuMicros();
  for (const one of encrypted) codec.decrypt(one);
  const decode = (cpuMicros() - startDecode) / rounds;
  return { encode, decode };
}

function main(): void {
  const codec = new PayloadEncryptionCodec([{ id: 'bench', key: randomBytes(32) }]);
  say(`payload codec (AES-256-GCM), ${ROUNDS.toLocaleString('en')} rounds per size, CPU µs per payload`);
  for (const [label, bytes] of sizes) {
    const payload = defaultPayloadConverter.toPayload(valueOf(bytes));
    const size = payload.data?.length ?? 0;
    const rounds = Math.max(200, Math.round((ROUNDS * 1_000) / Math.max(size, 1_000)));
    measure(codec, payload, Math.min(rounds, 2_000)); // warm-up
    const { encode, decode } = measure(codec, payload, rounds);
    say(
      `${label.padEnd(26)} ${String(size).padStart(7)} B   encode ${encode.toFixed(1).padStart(6)} µs   decode ${decode
        .toFixed(1)
        .padStart(6)} µs   both ${(encode + decode).toFixed(1).padStart(6)} µs`,
    );
  }
}

main();
