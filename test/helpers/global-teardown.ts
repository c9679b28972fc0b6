import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunningPostgres } from '../../scripts/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const servers = (globalThis as Record<string, unknown>).__switchboardTestServers as
    { postgres: RunningPostgres; temporal: TestWorkflowEnvironment } | undefined;
  await servers?.temporal.teardown();
  await servers?.postgres.stop();
}
