import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../entities/data-source';
import { config } from '../platform/config';

/** Applies pending migrations; returns their names. */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  return applied.map((migration) => migration.name);
}

/** `npm run migrate` (apply) and `npm run migrate -- --revert` (undo the last one). */
async function main(): Promise<void> {
  const dataSource = createDataSource({ url: config().DATABASE_URL, applicationName: 'switchboard-migrate' });
  await dataSource.initialize();
  try {
    if (process.argv.includes('--revert')) {
      await dataSource.undoLastMigration({ transaction: 'each' });
      console.log('Reverted the last migration.');
    } else {
      const names = await runMigrations(dataSource);
      console.log(names.length > 0 ? `Applied: ${names.join(', ')}` : 'No pending migrations.');
    }
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
