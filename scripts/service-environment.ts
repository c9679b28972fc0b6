import { clusterSecrets } from './cluster-secrets';

/**
 * The environments `npm start` and `npm run start:cluster` give the processes they start. Each is
 * the caller's whole environment, so every setting reaches every process, with only the values
 * the script itself decides on top.
 */

/** `npm start`: the addresses of the PostgreSQL and Temporal it started (or was given). */
export function localServiceEnvironment(
  parent: NodeJS.ProcessEnv,
  started: { databaseUrl: string; temporalAddress: string },
): NodeJS.ProcessEnv {
  return { ...parent, DATABASE_URL: started.databaseUrl, TEMPORAL_ADDRESS: started.temporalAddress };
}

/**
 * `npm run start:cluster`: production mode on its own state directory, with secrets kept there
 * unless given. Each process's PORT and WORKER_METRICS_PORT are set on top (PORT, PORT+1, …).
 */
export function clusterServiceEnvironment(
  parent: NodeJS.ProcessEnv,
  started: { databaseUrl: string; temporalAddress: string; dataDir: string; firstApiPort: number },
): NodeJS.ProcessEnv {
  return {
    ...parent,
    ...clusterSecrets(started.dataDir, parent),
    NODE_ENV: 'production',
    DATABASE_URL: started.databaseUrl,
    TEMPORAL_ADDRESS: started.temporalAddress,
    DATA_DIR: started.dataDir,
    // Providers call one public address; locally that is the first API process.
    PUBLIC_BASE_URL: parent.PUBLIC_BASE_URL || `http://localhost:${started.firstApiPort}`,
  };
}
