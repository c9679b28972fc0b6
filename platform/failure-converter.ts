import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Failures with their message and stack trace moved into an encoded payload, so the payload codec
 * encrypts them too (a provider's error may quote a number). Loaded by path: inside the workflow
 * sandbox (bundles are built with FAILURE_CONVERTER_PATH) and by clients and workers.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
