import { rmSync } from 'node:fs';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunningPostgres } from '../../scripts/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const servers = (globalThis as Record<string, unknown>).__switchboardTestServers as
    { postgres: RunningPostgres; temporal: TestWorkflowEnvironment; runDir: string } | undefined;
  await servers?.temporal.teardown();
  await servers?.postgres.stop();
  // The run's database files and bundle (70 to 175 MB): nothing reads them once the servers stop.
  if (servers) rmSync(servers.runDir, { recursive: true, force: true });
}
