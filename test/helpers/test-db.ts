import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../entities/data-source';
import { testEnv } from './test-env';

export interface TestDatabase {
  name: string;
  url: string;
  dataSource: DataSource;
  drop(): Promise<void>;
}

async function admin<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: testEnv('postgresAdminUrl') });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from the migrated template: each test file gets its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${testEnv('templateDatabase')}`));
  const url = new URL(testEnv('postgresAdminUrl'));
  url.pathname = `/${name}`;
  const dataSource = createDataSource({ url: url.toString(), poolSize: 5, applicationName: 'test' });
  await dataSource.initialize();
  await shiftWorkflowIds(dataSource);
  return {
    name,
    url: url.toString(),
    dataSource,
    async drop() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * Call and campaign workflow ids follow run and campaign ids (`call-<id>`, `campaign-<id>`), and
 * every file's database talks to the run's one Temporal server: each database starts its ids at a
 * random point so no two files start the same workflow id.
 */
async function shiftWorkflowIds(dataSource: DataSource): Promise<void> {
  for (const sequence of ['runs_id_seq', 'campaigns_id_seq']) {
    await dataSource.query(`SELECT setval($1, $2)`, [sequence, 1_000_000 + Math.floor(Math.random() * 1_000_000_000)]);
  }
}

/** Makes the database refuse every connection, as if its server were down; returns the undo. */
export async function takeDatabaseOffline(name: string): Promise<() => Promise<void>> {
  await admin(async (c) => {
    await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
  });
  return () => admin(async (c) => void (await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)));
}
