import type { Client } from '@temporalio/client';
import { buildTestApp } from './app';
import { connectTestTemporal, type TestTemporal } from './temporal';
import { createTestDatabase, type TestDatabase } from './test-db';

export interface TestServices {
  readonly db: TestDatabase;
  readonly temporal: TestTemporal;
  /** The real app over this file's database and the run's Temporal, as supertest takes it. */
  server(
    env?: Record<string, string>,
    temporal?: Client,
  ): ReturnType<ReturnType<typeof buildTestApp>['app']['callback']>;
}

/** Gives the calling test file its own database and a Temporal connection for all of its tests. */
export function useTestServices(): TestServices {
  let db: TestDatabase | undefined;
  let temporal: TestTemporal | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    temporal = await connectTestTemporal();
  });
  afterAll(async () => {
    await temporal?.close();
    await db?.drop();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('test services are used before beforeAll ran');
    return value;
  };
  return {
    get db() {
      return ready(db);
    },
    get temporal() {
      return ready(temporal);
    },
    server(env = {}, client) {
      return buildTestApp(
        { dataSource: ready(db).dataSource, temporal: client ?? ready(temporal).client },
        env,
      ).app.callback();
    },
  };
}
