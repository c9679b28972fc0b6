import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { TurnLatency } from '../agent-runtime/contract';

export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  /** Live calls: each answered turn's latency by stage (`TurnLatency`, in seconds). */
  voiceTurnLatency: Histogram<'stage'>;
}

const TURN_STAGES = ['total', 'endpointing', 'stt', 'llm', 'tts', 'overhead'] as const;

/** Records one live-call turn in the latency histogram. */
export function observeTurn(metrics: Metrics, latency: TurnLatency): void {
  for (const stage of TURN_STAGES) metrics.voiceTurnLatency.observe({ stage }, latency[stage] / 1000);
}

/** A registry per app instance, so tests can build several apps in one process. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'API request duration by route pattern, method and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const voiceTurnLatency = new Histogram({
    name: 'voice_turn_latency_seconds',
    help: "Live calls: from the caller's end of speech to the agent's first audio (total), and its stages",
    labelNames: ['stage'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5],
    registers: [registry],
  });
  return { registry, httpRequestDuration, voiceTurnLatency };
}
