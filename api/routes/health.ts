import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { healthCheckWorkflowId } from '../../workflows/definitions';
import type { healthCheckWorkflow } from '../../workflows/health-check.workflow';
import { OPERATOR_ONLY, requireOperator } from '../auth/operator-access';
import type { ApiDeps } from '../context';
import { ServiceUnavailableError } from '../errors';
import { defineRoute, errorResponse, type Route } from '../route';
import { DeepHealthResponse, HealthResponse, ReadinessResponse } from '../schemas/health';
import { version } from '../../platform/version';
import { pingDatabase } from '../../domain/operations/database-ping';

/** Started by its type name, checked against its signature: the API loads no workflow code. */
const HEALTH_CHECK_WORKFLOW_TYPE = 'healthCheckWorkflow';
const CHECK_TIMEOUT_MS = 3_000;
const DEEP_CHECK_TIMEOUT_MS = 10_000;
const DEEP_CHECK_REUSE_MS = 5_000;

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms).unref(),
    ),
  ]);

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createHealthRoutes({ config, dataSource, temporal, logger }: ApiDeps): Route[] {
  // Public answers name what is down, never why: the causes (hosts, ports, driver messages) go to the log.
  const checkDatabase = async (): Promise<string | undefined> => {
    try {
      await withTimeout(pingDatabase(dataSource), CHECK_TIMEOUT_MS, 'PostgreSQL check');
      return undefined;
    } catch (error) {
      logger.warn({ err: error }, 'readiness: PostgreSQL check failed');
      return 'PostgreSQL is unavailable';
    }
  };
  const checkTemporal = async (): Promise<string | undefined> => {
    try {
      await temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
        temporal.workflowService.getSystemInfo({}),
      );
      return undefined;
    } catch (error) {
      logger.warn({ err: error }, 'readiness: Temporal check failed');
      return 'Temporal is unavailable';
    }
  };
  const runDeepCheck = async () => {
    const workflowId = healthCheckWorkflowId(randomUUID());
    const started = Date.now();
    try {
      const result = await withTimeout(
        temporal.workflow.execute<typeof healthCheckWorkflow>(HEALTH_CHECK_WORKFLOW_TYPE, {
          workflowId,
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowExecutionTimeout: `${DEEP_CHECK_TIMEOUT_MS} ms`,
        }),
        DEEP_CHECK_TIMEOUT_MS + 1_000,
        'Health-check workflow',
      );
      return {
        status: 'ok' as const,
        workflow_id: workflowId,
        worker_identity: result.workerIdentity,
        database_name: result.databaseName,
        database_time: result.databaseTime,
        latency_ms: Date.now() - started,
      };
    } catch (error) {
      const cause = error instanceof WorkflowFailedError ? reason(error.cause) : reason(error);
      throw new ServiceUnavailableError(`End-to-end check ${workflowId} failed: ${cause}`);
    }
  };
  // Each check starts a workflow: callers while one runs, or within DEEP_CHECK_REUSE_MS after it
  // ended, share its answer, so a flood of requests starts one workflow, not one each.
  let latestDeepCheck: { answer: ReturnType<typeof runDeepCheck>; settledAt?: number } | undefined;
  const deepCheck = () => {
    const settledAt = latestDeepCheck?.settledAt;
    if (!latestDeepCheck || (settledAt !== undefined && Date.now() - settledAt > DEEP_CHECK_REUSE_MS)) {
      const check: NonNullable<typeof latestDeepCheck> = { answer: runDeepCheck() };
      const settle = () => {
        check.settledAt = Date.now();
      };
      // Also keeps a failure that nobody else awaits from going unhandled.
      check.answer.then(settle, settle);
      latestDeepCheck = check;
    }
    return latestDeepCheck.answer;
  };

  return [
    defineRoute(
      {
        method: 'get',
        path: '/health',
        operationId: 'getHealth',
        summary: 'Liveness and instance information',
        description: 'Needs no credentials. Answers while the process runs, whatever its dependencies do.',
        tags: ['health'],
        security: [],
        responses: { 200: { description: 'The service is up', schema: HealthResponse } },
      },
      (ctx) => {
        ctx.body = {
          status: 'ok',
          version,
          backend_api_endpoint: config.PUBLIC_BASE_URL,
          deployment_mode: config.DEPLOYMENT_MODE,
          auth_provider: config.AUTH_PROVIDER,
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/health/ready',
        operationId: 'getReadiness',
        summary: 'Readiness: PostgreSQL and Temporal both answer',
        description: 'Needs no credentials. 503 names every dependency that is down (the causes go to the log).',
        tags: ['health'],
        security: [],
        responses: {
          200: { description: 'Ready to serve', schema: ReadinessResponse },
          503: errorResponse('A dependency is down; `detail` names it'),
        },
      },
      async (ctx) => {
        const problems = (await Promise.all([checkDatabase(), checkTemporal()])).filter(Boolean);
        if (problems.length > 0) throw new ServiceUnavailableError(`Not ready: ${problems.join('; ')}`);
        ctx.body = { status: 'ready', checks: { database: 'ok', temporal: 'ok' } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/health/deep',
        operationId: 'getDeepHealth',
        summary: 'End-to-end check through a worker',
        description:
          'For operators: needs `X-Operator-Token` (`OPERATOR_TOKEN`), or a caller on the API host with no ' +
          'proxy in front; 403 otherwise. Starts a `healthCheckWorkflow` on the worker task queue; a worker ' +
          "runs its activity, which reads PostgreSQL's clock. Requests within 5 s of a check share its answer. " +
          '503 when no worker completes it within 10 s.',
        tags: ['health'],
        security: [],
        responses: {
          200: { description: 'A worker ran the check against PostgreSQL', schema: DeepHealthResponse },
          403: errorResponse(OPERATOR_ONLY),
          503: errorResponse('Temporal is down, no worker is polling, or the worker cannot reach PostgreSQL'),
        },
      },
      async (ctx) => {
        requireOperator(ctx, config);
        ctx.body = await deepCheck();
      },
    ),
  ];
}
