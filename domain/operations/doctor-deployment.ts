import { isIP } from 'node:net';
import { createUserRepository } from '../../entities/repositories/user.repository';
import { isPublicAddress } from '../../platform/address-guard';
import { finding, type DoctorDeps, type Finding } from './doctor';
import { probe } from './doctor-http';

const CHECK = 'PUBLIC_BASE_URL';

/**
 * Where carriers send their webhooks and media streams: set, https, a public host, and answering
 * here. Reachability from this machine is only a hint: what counts is the carriers' side.
 */
export async function publicUrlFindings(deps: DoctorDeps): Promise<Finding[]> {
  const raw = deps.config.PUBLIC_BASE_URL;
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const setFix =
    'Set PUBLIC_BASE_URL to the https address carriers reach (your reverse proxy, or a tunnel while developing); see docs/operations/going-live.md';
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && !isPublicAddress(host))) {
    return [
      finding(
        CHECK,
        'fail',
        `${raw} is not reachable from a carrier: webhooks and media streams cannot arrive`,
        setFix,
      ),
    ];
  }
  const findings: Finding[] = [];
  if (url.protocol !== 'https:') {
    findings.push(
      finding(
        CHECK,
        'fail',
        `${raw} is not https: carriers refuse plain media streams (ws://) and webhook signatures leak`,
        'Put a reverse proxy with TLS in front of the API (the compose file has Caddy) and use its https URL',
      ),
    );
  }
  const health = await probe(deps, new URL('/api/v1/health', url).toString());
  if ('error' in health) {
    findings.push(
      finding(
        CHECK,
        'warn',
        `${raw} does not answer from here (${health.error})`,
        'Check DNS, the proxy and the firewall; a carrier must reach it from the internet',
      ),
    );
  } else if (health.status !== 200) {
    findings.push(
      finding(CHECK, 'warn', `${raw}/api/v1/health answered ${health.status}`, 'Check that it reaches this API'),
    );
  } else if (findings.length === 0) {
    findings.push(finding(CHECK, 'ok', `${raw} answers over https`));
  }
  return findings;
}

/** Who can create accounts and reach the operator routes. */
export async function accessFindings({ config, dataSource }: DoctorDeps): Promise<Finding[]> {
  const findings: Finding[] = [];
  const users = await createUserRepository(dataSource).countAll();
  if (config.ENABLE_SIGNUP) {
    findings.push(
      finding(
        'ENABLE_SIGNUP',
        'warn',
        'Anyone who reaches the API can create an account and an organization',
        'Set ENABLE_SIGNUP=false once your accounts exist (ADMIN_EMAIL and ADMIN_PASSWORD create the first)',
      ),
    );
  } else if (users === 0 && !config.ADMIN_EMAIL) {
    findings.push(
      finding(
        'ENABLE_SIGNUP',
        'fail',
        'Signup is off and there is no account: nobody can sign in',
        'Set ADMIN_EMAIL and ADMIN_PASSWORD and restart the API',
      ),
    );
  } else {
    findings.push(finding('ENABLE_SIGNUP', 'ok', 'Signup is off; accounts come from the administrator'));
  }
  if (!config.OPERATOR_TOKEN) {
    findings.push(
      finding(
        'OPERATOR_TOKEN',
        'warn',
        '/metrics and /api/v1/health/deep answer only on the API host itself, and not at all behind a proxy',
        'Set OPERATOR_TOKEN (npm run secrets:init writes one) and send it as X-Operator-Token',
      ),
    );
  } else {
    findings.push(finding('OPERATOR_TOKEN', 'ok', 'Operator routes need the operator token'));
  }
  if (config.TRUST_PROXY === 0 && new URL(config.PUBLIC_BASE_URL).protocol === 'https:') {
    findings.push(
      finding(
        'TRUST_PROXY',
        'warn',
        'TRUST_PROXY is 0: behind a reverse proxy every client looks like the proxy (rate limits, logs)',
        'Set TRUST_PROXY to the number of proxies in front of the API (1 with the compose file’s Caddy)',
      ),
    );
  }
  return findings;
}
