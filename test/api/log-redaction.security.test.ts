import { Writable } from 'node:stream';
import request from 'supertest';
import { createApp } from '../../api/app';
import { createMetrics } from '../../api/metrics';
import { parseConfig } from '../../platform/config';
import { maskPhoneNumber, redactMediaToken } from '../../platform/log-redaction';
import { createLogger } from '../../platform/logger';
import { Secrets } from '../../telephony/secrets';
import { mediaStreamUrl, mediaTokenKey } from '../../voice/media-token';
import { TEST_SESSION_SECRET } from '../helpers/app';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

/** What the logs of an API process say about media tokens, unknown inbound calls and database values. */

const services = useTestServices();
const lines: string[] = [];
const logger = createLogger(
  'debug',
  'log-redaction-test',
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  }),
);
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

const app = () =>
  createApp({
    config: parseConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'debug',
      SESSION_SECRET: TEST_SESSION_SECRET,
      SECRETS_KEY: TEST_SECRETS_KEY,
    }),
    dataSource: services.db.dataSource,
    temporal: services.temporal.client,
    logger,
    metrics: createMetrics(),
  }).callback();

const logged = (): string => lines.join('\n');

/** A valid media token: Twilio's URL carries it as the last path segment. */
const tokenOf = (runId: number): string =>
  mediaStreamUrl('https://sb.example.com', mediaTokenKey(secrets), { provider: 'twilio', runId }).split('/').at(-1) ??
  '';

describe('log lines', () => {
  it('never carry a media token, in the path or the query', async () => {
    const token = tokenOf(41);
    expect(token.length).toBeGreaterThan(20);
    await request(app()).get(`/api/v1/telephony/twilio/media/41/${token}`);
    expect(logged()).toContain('/api/v1/telephony/twilio/media/41/[redacted]');
    expect(logged()).not.toContain(token);
    // The forms the media server's upgrade failures log (Twilio's path, the query, Asterisk's query).
    for (const url of [
      `/api/v1/telephony/twilio/media/41/${token}`,
      `/api/v1/telephony/plivo/media/41?token=${token}`,
      `/api/v1/telephony/ari/media?run_id=41&token=${token}`,
    ]) {
      expect(redactMediaToken(url)).not.toContain(token);
      expect(redactMediaToken(url)).toContain('[redacted]');
    }
  });

  it('mask the called number of an inbound call to a number nobody holds', async () => {
    const called = '+14155557788';
    const res = await request(app())
      .post('/api/v1/telephony/twilio/inbound')
      .type('form')
      .send({ CallSid: 'CA0123456789abcdef0123456789abcdef', To: called, From: '+14155550100', AccountSid: 'AC1' });
    expect(res.status).toBe(200);
    const line = lines.find((text) => text.includes('inbound call to an unknown number'));
    expect(line).toBeDefined();
    expect(line).toContain(String(maskPhoneNumber(called)));
    expect(line).not.toContain(called);
    expect(line).not.toContain('4155557788');
  });

  it("keep a database error's code and constraint, never the values it quotes", async () => {
    const number = '+14155556677';
    await services.db.dataSource.query('CREATE TABLE redaction_probe (phone text PRIMARY KEY)');
    const errors: unknown[] = [];
    for (const [sql, parameters] of [
      ['SELECT $1::int', [`call me at ${number}`]],
      ['INSERT INTO redaction_probe (phone) VALUES ($1), ($1)', [number]],
    ] as const) {
      await services.db.dataSource.query(sql, [...parameters]).catch((error: unknown) => errors.push(error));
    }
    expect(errors).toHaveLength(2);
    // Unredacted, both would name the number: in the message (22P02), in `detail` and `parameters` (23505).
    expect(JSON.stringify(errors[1])).toContain(number);
    for (const error of errors) logger.error({ err: error }, 'database probe failed');
    const probes = lines.filter((text) => text.includes('database probe failed'));
    expect(probes).toHaveLength(2);
    for (const text of probes) expect(text).not.toContain('4155556677');
    const [dataException, uniqueViolation] = probes.map((text) => JSON.parse(text) as { err: Record<string, unknown> });
    expect(dataException?.err).toMatchObject({ code: '22P02', parameters: '[redacted]' });
    expect(dataException?.err.message).toBe('invalid input syntax for type integer: "[redacted]"');
    expect(uniqueViolation?.err).toMatchObject({
      code: '23505',
      constraint: 'redaction_probe_pkey',
      detail: '[redacted]',
      parameters: '[redacted]',
    });
  });
});
