import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Payload } from '@temporalio/common';
import { PayloadEncryptionCodec, temporalDataConverter } from '../../platform/payload-codec';
import { payloadKeys } from '../../platform/payload-keys';
import { promoteVersion } from '../../workers/versioning';
import { readWorkflowBundle } from '../../workers/workflow-code';
import { testEnv } from './test-env';

/**
 * The data converter of every test client, worker and replayer: the service's encrypting codec with
 * the development key, which the API and worker processes the tests start use too.
 */
export const testDataConverter = temporalDataConverter({ NODE_ENV: 'test' });

const testCodec = new PayloadEncryptionCodec(payloadKeys({ NODE_ENV: 'test' }));
/** A payload of a history fetched from the server, decrypted as the SDK would (plain ones pass through). */
export const decryptedPayload = (payload: Payload): Payload => testCodec.decrypt(payload);

export interface TestTemporal {
  client: Client;
  nativeConnection: NativeConnection;
  close(): Promise<void>;
}

/** Clients for the run's Temporal dev server (started once by the global setup). */
export async function connectTestTemporal(): Promise<TestTemporal> {
  const address = testEnv('temporalAddress');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  return {
    client: new Client({ connection, namespace: 'default', dataConverter: testDataConverter }),
    nativeConnection,
    async close() {
      await nativeConnection.close();
      await connection.close();
    },
  };
}

/** Each test gets its own task queue so no other test's worker can take its tasks. */
export const uniqueTaskQueue = (label: string): string => `test-${label}-${randomUUID()}`;

/** The run's one workflow bundle (built by the global setup), so no test worker runs webpack. */
export const testWorkflowBundle = (): { codePath: string } => ({ codePath: testEnv('workflowBundle') });

let runBuildId: string | undefined;

/** The build id of the run's bundle: the one workers loading it (`workers/main.ts`) run as. */
export const testBuildId = (): string => (runBuildId ??= readWorkflowBundle(testEnv('workflowBundle')).buildId);

/**
 * Makes the run's build the current version of `deploymentName` (`workers/main.ts`'s default) once
 * one of its workers polls (within `timeoutMs`, a minute by default), as `npm start` does for its
 * worker; a worker never does it itself.
 */
export async function promoteTestBuild(
  client: Client,
  deploymentName = 'switchboard',
  timeoutMs?: number,
): Promise<void> {
  await promoteVersion(client, { deploymentName, buildId: testBuildId() }, { timeoutMs });
}

/** Ends the workflows a file started and left running; one already closed is no error. */
export const terminateAll = (client: Client, workflowIds: string[]): Promise<unknown> =>
  Promise.all(
    workflowIds.map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('test over')
        .catch(() => undefined),
    ),
  );
