import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';
import type { Secrets } from '../../telephony/secrets';
import { accessFindings, publicUrlFindings } from './doctor-deployment';
import { modelAndSpeechFindings } from './doctor-services';
import { telephonyFindings } from './doctor-telephony';

/** One finding of `npm run doctor`: `fail` must be fixed before real calls, `warn` deserves a look. */
export interface Finding {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  /** What to do about it; empty for `ok`. */
  fix: string;
}

export interface DoctorDeps {
  config: Config;
  dataSource: DataSource;
  secrets: Secrets;
  /** HTTP for the checks (tests answer from local fakes); the global fetch by default. */
  fetch?: typeof fetch;
  /** Each outside request's limit, ms. */
  timeoutMs?: number;
}

export const finding = (check: string, status: Finding['status'], message: string, fix = ''): Finding => ({
  check,
  status,
  message,
  fix,
});

/**
 * Checks a deployment before it places real calls: where carriers call back, each telephony
 * configuration's credentials with its provider, the language model and speech keys, and who can
 * sign up and reach the operator routes. Asks each outside service something harmless.
 */
export async function runDoctor(deps: DoctorDeps): Promise<Finding[]> {
  const [url, telephony, services, access] = await Promise.all([
    publicUrlFindings(deps),
    telephonyFindings(deps),
    modelAndSpeechFindings(deps),
    accessFindings(deps),
  ]);
  return [...url, ...telephony, ...services, ...access];
}

/** The findings as the command prints them, failures first. */
export function formatFindings(findings: Finding[]): string {
  const order = { fail: 0, warn: 1, ok: 2 } as const;
  const label = { fail: 'FAIL', warn: 'WARN', ok: ' OK ' } as const;
  return [...findings]
    .sort((a, b) => order[a.status] - order[b.status])
    .map(
      ({ check, status, message, fix }) => `[${label[status]}] ${check}: ${message}${fix ? `\n       → ${fix}` : ''}`,
    )
    .join('\n');
}
