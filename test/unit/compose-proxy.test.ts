import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { aptInstall } from '../../scripts/apt-packages';
import { COMPOSE_OWNED_SETTINGS } from '../../scripts/compose-env';
import { COMPOSE_FILE } from '../../scripts/compose-tools';
import { onPath } from '../../scripts/executables';

/**
 * Several API replicas behind one load balancer in compose: the api service publishes no host port
 * (so `--scale api=N` works) and the proxy service's Caddyfile, which Caddy itself checks here,
 * spreads requests over every replica.
 */
interface Service {
  image?: string;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
}
const root = join(__dirname, '..', '..');
const compose = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as { services: Record<string, Service> };
const api = compose.services.api ?? {};
const proxy = compose.services.proxy ?? {};
const CADDYFILE = 'deploy/caddy/Caddyfile';

let caddy: string;
beforeAll(async () => {
  // Debian's package (Caddy 2.6), installed on first need like the compose check's docker-compose.
  if (!onPath('caddy')) await aptInstall(['caddy'], (line) => process.stdout.write(`${line}\n`));
  const found = onPath('caddy');
  if (!found) throw new Error('caddy is not installed and apt-get could not install it');
  caddy = found;
}, 300_000);

/** Caddy's JSON for the Caddyfile with SITE_ADDRESS as compose gives it. */
function adapt(siteAddress: string): { stdout: string; status: number | null; stderr: string } {
  const result = spawnSync(caddy, ['adapt', '--adapter', 'caddyfile', '--config', join(root, CADDYFILE)], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SITE_ADDRESS: siteAddress },
  });
  return { stdout: result.stdout, status: result.status, stderr: result.stderr };
}

it('publishes no host port for the API, so that it scales, and the proxy in front of it', () => {
  expect(api.ports).toBeUndefined();
  expect(api.expose).toEqual([COMPOSE_OWNED_SETTINGS.PORT?.replace(/'/g, '')]);
  expect(proxy.ports).toEqual(['${HTTP_PORT:-8000}:80', '${HTTPS_PORT:-8443}:443']);
  expect(proxy.depends_on?.api).toEqual({ condition: 'service_healthy' });
  expect(proxy.volumes).toContain(`./${CADDYFILE}:/etc/caddy/Caddyfile:ro`);
  // The API trusts the one proxy's X-Forwarded-For entry unless told otherwise.
  expect(api.environment?.TRUST_PROXY).toBe('${TRUST_PROXY:-1}');
});

it('serves plain HTTP on :80 by default, spreading requests over every replica of the api service', () => {
  expect(proxy.environment?.SITE_ADDRESS).toBe('${SITE_ADDRESS:-:80}');
  const adapted = adapt(':80');
  expect(adapted.status).toBe(0);
  const server = (JSON.parse(adapted.stdout) as { apps: { http: { servers: Record<string, unknown> } } }).apps.http
    .servers.srv0 as { listen: string[]; routes: { handle: Record<string, unknown>[] }[] };
  expect(server.listen).toEqual([':80']);
  expect(server.routes[0]?.handle[0]).toMatchObject({
    handler: 'reverse_proxy',
    // Every A record of the service name, looked up again as replicas come and go.
    dynamic_upstreams: { source: 'a', name: 'api', port: COMPOSE_OWNED_SETTINGS.PORT?.replace(/'/g, '') },
    load_balancing: { selection_policy: { policy: 'round_robin' } },
  });
});

it('serves HTTPS for a domain name, with a certificate Caddy obtains itself', () => {
  const adapted = adapt('calls.example.com');
  expect(adapted.status).toBe(0);
  expect(adapted.stdout).toContain('"listen":[":443"]');
  expect(adapted.stdout).toContain('"host":["calls.example.com"]');
});

it('is a configuration Caddy accepts as a whole', () => {
  const result = spawnSync(caddy, ['validate', '--adapter', 'caddyfile', '--config', join(root, CADDYFILE)], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SITE_ADDRESS: ':80' },
  });
  expect(`${result.stdout}${result.stderr}`).toMatch(/Valid configuration/);
});
