import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { TranscriptLine } from '../../agent-runtime';
import { TOOL_DELAY_LINE, TOOL_DELAY_MS, type ToolCallLog } from '../../agent-runtime/tools';
import { Run } from '../../entities';
import { createAgent } from '../helpers/agents';
import { callingOrganization, definitionWithTrigger, triggerPathOf } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { startVoiceStack, type VoiceStack } from '../helpers/voice-stack';
import { recordingTracks, rms } from '../voice/audio-helpers';

const services = useTestServices();

/** What only the order service knows. */
const ORDER = { delivery_day: 'Thursday', courier: 'Falcon Freight' };
const FACT = 'delivery day is Thursday, courier is Falcon Freight.';
const CUSTOM_MESSAGE = 'Let me check that order.';

/** The shop's order service: answers slower than the "one moment" threshold. */
const seen: { url: string; headers: Record<string, string | undefined> }[] = [];
let shop: Server;
let shopPort: number;
let stack: VoiceStack;

beforeAll(async () => {
  shop = createServer((req, res) => {
    seen.push({
      url: req.url ?? '',
      headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])),
    });
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ORDER)),
      TOOL_DELAY_MS + 1_000,
    );
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopPort = (shop.address() as AddressInfo).port;
  stack = await startVoiceStack(services, 'live-tools', { ALLOW_PRIVATE_WEBHOOKS: 'true' });
});

afterAll(async () => {
  await stack.close();
  shop.closeAllConnections();
  await new Promise<void>((resolve) => shop.close(() => resolve()));
});

/**
 * The start node looks the order up as the call opens (no greeting: the offline policy's first turn
 * runs the node's tools), so what is said does not hang on what the agent makes of the caller's
 * speech on a loaded machine; then the caller's answer leads to the end.
 */
function orderDefinition(toolUuid: string) {
  const definition = definitionWithTrigger();
  const nodes = definition.nodes
    .filter((node) => node.id !== 'talk')
    .map((node) => {
      if (node.id === 'start')
        return { ...node, data: { ...node.data, prompt: 'About your order.', tool_uuids: [toolUuid] } };
      if (node.id === 'end') return { ...node, data: { ...node.data, prompt: 'Thank you, goodbye.' } };
      return node;
    });
  return {
    ...definition,
    nodes,
    edges: [{ id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'The caller answered' } }],
  };
}

describe('an HTTP tool on a live audio call (the simulator with audio, offline speech)', () => {
  it('says the custom message, fills the wait, and speaks what only the tool answered', async () => {
    const org = await callingOrganization(stack.app.callback(), { ring_seconds: 0, talk_seconds: 40, audio: true });
    const tool = await request(stack.app.callback())
      .post('/api/v1/tools')
      .auth(org.owner.token, { type: 'bearer' })
      .send({
        name: 'Order status',
        description: 'Looks up an order by its number.',
        definition: {
          type: 'http_api',
          config: {
            method: 'GET',
            url: `http://127.0.0.1:${shopPort}/orders/{{order_id}}`,
            parameters: [{ name: 'order_id', type: 'string', description: 'The order number', required: true }],
            customMessage: CUSTOM_MESSAGE,
          },
        },
      });
    expect(tool.status).toBe(201);
    const agent = await createAgent(
      stack.app.callback(),
      org.owner.token,
      orderDefinition(tool.body.tool_uuid as string),
      'Order agent',
    );
    const worker = await stack.createWorker();
    let runId = 0;
    await worker.runUntil(async () => {
      const res = await request(stack.app.callback())
        .post(`/api/v1/public/agent/${triggerPathOf(agent)}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: '+14155550123', initial_context: { order_id: 'A-1042' } });
      expect(res.status).toBe(200);
      runId = res.body.workflow_run_id as number;
      const outcome = await services.temporal.client.workflow.getHandle(`call-${runId}`).result();
      expect(outcome).toMatchObject({ runId, callStatus: 'completed' });
    });
    await Promise.all(stack.conversations);

    const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    expect((run.logs.node_path as string[])[0]).toBe('start');
    expect(seen.map((entry) => entry.url)).toEqual(['/orders/A-1042']);
    expect(seen[0]?.headers['idempotency-key']).toBe(`run-${runId}-tool-1`);
    const calls = run.logs.tool_calls as ToolCallLog[];
    expect(calls).toEqual([
      expect.objectContaining({
        sequence: 1,
        function: 'order_status',
        arguments: { order_id: 'A-1042' },
        status: 'ok',
        status_code: 200,
        node_id: 'start',
      }),
    ]);
    expect(calls[0]?.duration_ms).toBeGreaterThanOrEqual(TOOL_DELAY_MS);

    // One reply: the node's opening, the custom message before the request, the line that filled
    // the wait, then the fact only the tool's answer held. The tool call stands in the transcript
    // where it began, inside that reply.
    const transcript = run.logs.transcript as (TranscriptLine | { role: 'tool'; text: string })[];
    expect(transcript.filter((entry) => entry.role === 'tool').map((entry) => entry.text)).toEqual([
      'order_status({"order_id":"A-1042"}) → ok 200',
    ]);
    const reply = transcript.find((entry): entry is TranscriptLine => entry.role === 'assistant');
    expect(reply?.text).toBe(`About your order. ${CUSTOM_MESSAGE} ${TOOL_DELAY_LINE} ${FACT}`);
    // It was spoken: the agent's track of the recording carries speech while the line played.
    const agentTrack = recordingTracks(await readFile(`${stack.recordingsDir}/${runId}.wav`)).agent;
    const spoken = agentTrack.subarray(Math.floor((reply?.start ?? 0) * 8000), Math.ceil((reply?.end ?? 0) * 8000));
    expect(spoken.length).toBeGreaterThan(8000 * 3);
    expect(rms(spoken)).toBeGreaterThan(0);
    expect(run.gatheredContext).toMatchObject({ call_status: 'completed' });
  }, 150_000);
});
