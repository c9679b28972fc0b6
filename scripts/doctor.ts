import 'reflect-metadata';
import { runDoctor, formatFindings } from '../domain/operations/doctor';
import { createDataSource } from '../entities/data-source';
import { config } from '../platform/config';
import { loadSecrets } from '../telephony/secrets';

/**
 * `npm run doctor`: checks this deployment's settings, as its API and worker read them, before real
 * calls; prints each finding with what to do, and exits 1 when one of them fails.
 */
async function main(): Promise<number> {
  const cfg = config();
  const dataSource = createDataSource({ url: cfg.DATABASE_URL, applicationName: 'switchboard-doctor' });
  try {
    await dataSource.initialize();
  } catch (error) {
    console.log(
      `[FAIL] database: ${(error as Error).message}\n       → Start PostgreSQL (npm start starts one) or set DATABASE_URL`,
    );
    return 1;
  }
  try {
    const findings = await runDoctor({ config: cfg, dataSource, secrets: loadSecrets(cfg) });
    console.log(formatFindings(findings));
    const failed = findings.filter((finding) => finding.status === 'fail').length;
    const warned = findings.filter((finding) => finding.status === 'warn').length;
    console.log(`\n${failed} to fix, ${warned} to look at, ${findings.length - failed - warned} fine.`);
    return failed > 0 ? 1 : 0;
  } finally {
    await dataSource.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
