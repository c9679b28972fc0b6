import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import request from 'supertest';
import { traceOutgoingFetch } from '../../platform/tracing/outgoing-fetch';
import { createApiKey, signUp, type SignedUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { waitFor } from '../helpers/wait-for';

/**
 * Trace context is a claim the caller makes: only authenticated callers may file our spans under a
 * trace of theirs, and baggage never leaves with outgoing requests (providers, model APIs).
 */

const services = useTestServices();
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
const ME = '/api/v1/auth/me';

let owner: SignedUp;
let apiKey: string;

beforeAll(async () => {
  owner = await signUp(services.server());
  apiKey = (await createApiKey(services.server(), owner.token)).api_key;
});

afterAll(() => provider.shutdown());

/** The server span of the one request sent with `headers`. */
async function serverSpanOf(headers: Record<string, string>, path = ME): Promise<ReadableSpan> {
  exporter.reset();
  const req = request(services.server()).get(path).set('traceparent', TRACEPARENT).set('baggage', 'user=mallory');
  for (const [name, value] of Object.entries(headers)) void req.set(name, value);
  await req;
  return waitFor(
    () => `the server span of ${path}`,
    () => exporter.getFinishedSpans().find((span) => span.name.startsWith('GET ')),
  );
}

describe('an incoming traceparent', () => {
  it('is continued for a caller with a valid API key or session token', async () => {
    const callers: Record<string, string>[] = [{ 'X-API-Key': apiKey }, { Authorization: `Bearer ${owner.token}` }];
    for (const headers of callers) {
      const span = await serverSpanOf(headers);
      expect(span.spanContext().traceId).toBe(CALLER_TRACE);
      expect(span.parentSpanId).toBe(CALLER_SPAN);
    }
  });

  it.each([
    ['no credentials', {}, '/api/v1/health'],
    ['no credentials, on an authenticated route', {}, ME],
    ['a forged API key', { 'X-API-Key': 'sb_live_forged_key_that_does_not_exist' }, ME],
    ['a forged session token', { Authorization: 'Bearer not.a.token' }, ME],
  ])('starts a new trace for a caller with %s', async (_label, headers, path) => {
    const span = await serverSpanOf(headers, path);
    expect(span.spanContext().traceId).not.toBe(CALLER_TRACE);
    expect(span.parentSpanId).toBeUndefined();
  });
});

describe('outgoing requests', () => {
  let receiver: Server;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('carry the trace to the provider but never the baggage', async () => {
    const untrace = traceOutgoingFetch();
    try {
      const baggage = propagation.createBaggage({ user: { value: 'mallory' }, tenant: { value: 'acme' } });
      const span = trace.getTracer('test').startSpan('activity');
      const active = propagation.setBaggage(trace.setSpan(context.active(), span), baggage);
      await context.with(active, async () => {
        const res = await fetch(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/calls`);
        await res.text();
      });
      span.end();
    } finally {
      untrace();
    }
    const [headers] = seen;
    expect(headers?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(headers?.baggage).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain('mallory');
  });
});
