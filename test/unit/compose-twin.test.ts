import { existsSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { parse } from 'yaml';
import { DYNAMIC_CONFIG_FILE, TEMPORAL_CONFIG_FILE, TEMPORAL_DEPLOY_DIR } from '../../scripts/temporal-cluster';
import { temporalServerVersion } from '../../scripts/temporal-server';
import { customSearchAttributes } from '../../workflows/search-attributes';

/**
 * docker-compose.yml and `npm run start:cluster` describe one topology: the same server version,
 * persistence plugin, server config, dynamic config, schema job and search attributes.
 */
const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Service {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  command?: string[];
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const service = (name: string): Service => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
/** The container path a repository file is mounted at. */
const mountOf = (svc: Service, file: string): string | undefined =>
  svc.volumes?.map((volume) => volume.split(':')).find(([source]) => source === `./${file}`)?.[1];

it('parses, and every service names an image or a build', () => {
  expect(Object.keys(compose.services)).toEqual(
    expect.arrayContaining(['postgresql', 'temporal-admin-tools', 'temporal', 'temporal-create-namespace']),
  );
  for (const svc of Object.values(compose.services) as (Service & { build?: string })[]) {
    expect(svc.image ?? svc.build).toBeDefined();
  }
});

it('runs the server version the cluster script builds, in the server and the admin tools', () => {
  const version = temporalServerVersion();
  expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  expect(service('temporal').image).toBe(`temporalio/server:\${TEMPORAL_VERSION:-${version}}`);
  for (const job of ['temporal-admin-tools', 'temporal-create-namespace']) {
    expect(service(job).image).toBe(`temporalio/admin-tools:\${TEMPORAL_ADMINTOOLS_VERSION:-${version}}`);
  }
});

it('runs the server on the committed config file with the committed dynamic config', () => {
  const temporal = service('temporal');
  // The image's working directory is /etc/temporal; relative paths resolve from there.
  const inContainer = (path: string) => posix.resolve('/etc/temporal', path);
  const configPath = temporal.environment?.TEMPORAL_SERVER_CONFIG_FILE_PATH ?? '';
  expect(inContainer(configPath)).toBe(mountOf(temporal, relative(root, TEMPORAL_CONFIG_FILE)));

  const dynamicDir = mountOf(temporal, relative(root, join(TEMPORAL_DEPLOY_DIR, 'dynamicconfig')));
  const dynamicPath = temporal.environment?.DYNAMIC_CONFIG_FILE_PATH ?? '';
  expect(inContainer(dynamicPath)).toBe(posix.join(dynamicDir ?? '', 'development-sql.yaml'));
  expect(DYNAMIC_CONFIG_FILE).toBe(join(TEMPORAL_DEPLOY_DIR, 'dynamicconfig', 'development-sql.yaml'));
  expect(existsSync(DYNAMIC_CONFIG_FILE)).toBe(true);
});

it('persists through postgres12 with SQL visibility everywhere', () => {
  expect(service('temporal').environment?.DB).toBe('postgres12');
  const config = readFileSync(TEMPORAL_CONFIG_FILE, 'utf8');
  expect(config.startsWith('# enable-template')).toBe(true);
  expect([...config.matchAll(/pluginName: (\S+)/g)].map((m) => m[1])).toEqual(['postgres12', 'postgres12']);
  expect(config).toMatch(/visibilityStore: postgres-visibility/);
  expect(read('deploy/temporal/setup-schema.sh')).toMatch(/--plugin postgres12 /);
});

it('creates the schemas and the namespace with the scripts the cluster script runs', () => {
  const schemaJob = service('temporal-admin-tools');
  expect(schemaJob.command).toEqual([mountOf(schemaJob, 'deploy/temporal/setup-schema.sh')]);
  const namespaceJob = service('temporal-create-namespace');
  expect(namespaceJob.command).toEqual([mountOf(namespaceJob, 'deploy/temporal/create-namespace.sh')]);
});

it('registers the search attributes the workflows use', () => {
  const declared = /^SEARCH_ATTRIBUTES="([^"]*)"$/m.exec(read('deploy/temporal/create-namespace.sh'))?.[1];
  const cliType: Record<string, string> = { INT: 'Int', KEYWORD: 'Keyword', TEXT: 'Text', BOOL: 'Bool' };
  expect(declared?.split(' ').sort()).toEqual(
    customSearchAttributes.map((key) => `${key.name}:${cliType[key.type]}`).sort(),
  );
});
