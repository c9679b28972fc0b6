import { z } from '../zod';

export const HealthResponse = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    backend_api_endpoint: z.string(),
    deployment_mode: z.string(),
    auth_provider: z.string(),
  })
  .openapi('HealthResponse');

export const ReadinessResponse = z
  .object({
    status: z.literal('ready'),
    checks: z.object({ database: z.literal('ok'), temporal: z.literal('ok') }),
  })
  .openapi('ReadinessResponse');

export const DeepHealthResponse = z
  .object({
    status: z.literal('ok'),
    workflow_id: z.string(),
    worker_identity: z.string(),
    database_name: z.string(),
    database_time: z.string().openapi({ format: 'date-time' }),
    latency_ms: z.number(),
  })
  .openapi('DeepHealthResponse');
