import { DefaultLogger, Runtime } from '@temporalio/worker';

// A test file's workers log every state change at INFO, which buries the run's results in CI
// output; warnings and errors still print.
Runtime.install({ logger: new DefaultLogger('WARN') });
