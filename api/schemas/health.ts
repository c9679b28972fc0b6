import { z } from '../zod';

export const HealthResponse = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    backend_api_endpoint: z.string(),
    deployment_mode: z.string(),
    auth_provider: z.string(),
  })
  .openapi('HealthResponse', {
    example: {
      status: 'ok',
      version: '0.1.0',
      backend_api_endpoint: 'https://switchboard.example.com',
      deployment_mode: 'oss',
      auth_provider: 'local',
    },
  });

export const ReadinessResponse = z
  .object({
    status: z.literal('ready'),
    checks: z.object({ database: z.literal('ok'), temporal: z.literal('ok') }),
  })
  .openapi('ReadinessResponse', { example: { status: 'ready', checks: { database: 'ok', temporal: 'ok' } } });

export const DeepHealthResponse = z
  .object({
    status: z.literal('ok'),
    workflow_id: z.string(),
    worker_identity: z.string(),
    database_name: z.string(),
    database_time: z.string().openapi({ format: 'date-time' }),
    latency_ms: z.number(),
  })
  .openapi('DeepHealthResponse', {
    example: {
      status: 'ok',
      workflow_id: 'health-check-0b6f1d9e-2c51-4a7e-9d0b-6a3c2f8e4b17',
      worker_identity: '4242@worker-1',
      database_name: 'switchboard',
      database_time: '2026-03-02T15:04:05.123Z',
      latency_ms: 38.4,
    },
  });
