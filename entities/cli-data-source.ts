import { createDataSource } from './data-source';
import { config } from '../platform/config';

/** For the TypeORM CLI (`npx typeorm-ts-node-commonjs -d entities/cli-data-source.ts ...`). */
export default createDataSource({ url: config().DATABASE_URL, applicationName: 'typeorm-cli' });
