import { maskSecret } from '../../telephony/credentials';
import type { Secrets } from '../../telephony/secrets';
import { ValidationError, type ValidationIssue } from '../errors';
import type { AgentGraph } from './agent-graph';

/**
 * The secrets an agent definition carries (each webhook node's `custom_headers` values, the QA
 * node's `qa_api_key`) are stored sealed under SECRETS_KEY as `{"enc": "v1.…"}`, shown masked in
 * every answer, and opened only by the request that sends them.
 */

interface SealedSecret {
  enc: string;
}

const isSealed = (value: unknown): value is SealedSecret =>
  typeof value === 'object' && value !== null && typeof (value as Partial<SealedSecret>).enc === 'string';

type JsonObject = Record<string, unknown>;

/** One place a secret sits in a definition. */
interface SecretSite {
  nodeIndex: number;
  node: JsonObject;
  /** Inside `node.data`: `['custom_headers', j, 'value']` or `['qa_api_key']`. */
  path: (string | number)[];
  /** Identifies the same secret across versions: node id, field and header name. */
  key: string;
  /** Where the secret is sent: a kept secret must not follow a change of it. */
  address: string;
}

const asObject = (value: unknown): JsonObject | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;

/** Every secret site of a definition, and a copy of it whose secret values `replace` returns. */
function mapSecrets<T>(definition: T, replace: (value: unknown, site: SecretSite) => unknown): T {
  const graph = asObject(definition);
  if (!graph || !Array.isArray(graph.nodes)) return definition;
  const nodes = graph.nodes.map((rawNode: unknown, nodeIndex) => {
    const node = asObject(rawNode);
    const data = asObject(node?.data);
    if (!node || !data) return rawNode;
    const id = String(node.id);
    if (node.type === 'webhook' && Array.isArray(data.custom_headers)) {
      const address = String(data.endpoint_url);
      const seen = new Set<string>();
      const headers = data.custom_headers.map((rawHeader: unknown, j) => {
        const header = asObject(rawHeader);
        if (!header) return rawHeader;
        const name = String(header.key).toLowerCase();
        // A repeated header name is told apart by its position among its namesakes.
        let key = `${id}\u0000header\u0000${name}`;
        for (let n = 1; seen.has(key); n += 1) key = `${id}\u0000header\u0000${name}\u0000${n}`;
        seen.add(key);
        const site: SecretSite = { nodeIndex, node, path: ['custom_headers', j, 'value'], key, address };
        return { ...header, value: replace(header.value, site) };
      });
      return { ...node, data: { ...data, custom_headers: headers } };
    }
    if (node.type === 'qa' && data.qa_api_key !== undefined) {
      const address = `${String(data.qa_provider)} ${String(data.qa_endpoint)}`;
      const site: SecretSite = { nodeIndex, node, path: ['qa_api_key'], key: `${id}\u0000qa_api_key`, address };
      return { ...node, data: { ...data, qa_api_key: replace(data.qa_api_key, site) } };
    }
    return rawNode;
  });
  return { ...graph, nodes } as T;
}

/** A stored secret in clear: sealed values opened, a value stored before sealing existed as it is. */
export function openSecret(value: unknown, secrets: Secrets): string {
  if (isSealed(value)) return secrets.open(value.enc);
  return typeof value === 'string' ? value : '';
}

/**
 * The definition as it is stored: every secret sealed. A secret sent back exactly as the mask of
 * the same secret in `stored` (same node, field and header name) keeps the stored secret, unless
 * where it is sent changed (the node's `endpoint_url`, or the QA provider or endpoint): a stored
 * secret is never sent to a new address without being sent again (422 at the value).
 */
export function sealAgentSecrets(incoming: AgentGraph, stored: unknown, secrets: Secrets): AgentGraph {
  const previous = new Map<string, { value: unknown; address: string }>();
  if (stored) mapSecrets(stored, (value, site) => previous.set(site.key, { value, address: site.address }));
  const issues: ValidationIssue[] = [];
  const sealed = mapSecrets(incoming, (value, site) => {
    if (typeof value !== 'string' || value === '') return value;
    const prior = previous.get(site.key);
    const priorClear = prior && openSecret(prior.value, secrets);
    // The same secret sent again in clear changes nothing (no new ciphertext, so no new version).
    if (prior && value === priorClear && isSealed(prior.value)) return prior.value;
    if (prior && priorClear !== undefined && value === maskSecret(priorClear)) {
      if (prior.address === site.address) {
        return isSealed(prior.value) ? prior.value : { enc: secrets.seal(priorClear) };
      }
      issues.push({
        loc: ['body', 'workflow_definition', 'nodes', site.nodeIndex, 'data', ...site.path],
        msg: 'Where this secret is sent changed, so it must be sent again: a stored secret is never sent to a new address',
        type: 'secret_required',
      });
      return value;
    }
    return { enc: secrets.seal(value) };
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return sealed;
}

/** The definition as answers show it: every secret masked (all but its last four characters). */
export function maskAgentSecrets<T>(stored: T, secrets: Secrets): T {
  return mapSecrets(stored, (value) =>
    isSealed(value) || typeof value === 'string' ? maskSecret(openSecret(value, secrets)) : value,
  );
}

type Query = (sql: string, parameters: unknown[]) => Promise<{ id: number; workflow_definition: unknown }[]>;

/** Versions holding a secret in clear (a header value or QA key that is a non-empty string). */
const HOLDS_CLEAR_SECRET = `
  jsonb_path_exists(workflow_definition,
    '$.nodes[*] ? (@.type == "webhook").data.custom_headers[*].value ? (@.type() == "string" && @ != "")')
  OR jsonb_path_exists(workflow_definition,
    '$.nodes[*] ? (@.type == "qa").data.qa_api_key ? (@.type() == "string" && @ != "")')`;

/**
 * Seals, in place, the secrets stored agent versions hold in clear (versions written before
 * secrets were sealed); `secrets` is only asked for when there is one. Returns how many versions
 * changed.
 */
export function sealStoredAgentSecrets(query: Query, secrets: () => Secrets): Promise<number> {
  return rewriteStoredSecrets(
    query,
    secrets,
    HOLDS_CLEAR_SECRET,
    (key) => (value) => (typeof value === 'string' && value !== '' ? { enc: key.seal(value) } : value),
  );
}

/** The reverse of `sealStoredAgentSecrets`: every sealed secret of stored versions back in clear. */
export function openStoredAgentSecrets(query: Query, secrets: () => Secrets): Promise<number> {
  return rewriteStoredSecrets(
    query,
    secrets,
    `jsonb_path_exists(workflow_definition, '$.nodes[*].data.** ? (exists(@.enc))')`,
    (key) => (value) => (isSealed(value) ? key.open(value.enc) : value),
  );
}

/**
 * Rewrites the secrets of every stored version that `filter` (SQL over `workflow_definition`)
 * selects, 200 versions at a time; the key is loaded only when some version needs it.
 */
async function rewriteStoredSecrets(
  query: Query,
  secrets: () => Secrets,
  filter: string,
  rewrite: (key: Secrets) => (value: unknown) => unknown,
): Promise<number> {
  let change: ((value: unknown) => unknown) | undefined;
  let changed = 0;
  let after = 0;
  for (;;) {
    const rows = await query(
      `SELECT id, workflow_definition FROM agent_versions WHERE id > $1 AND (${filter}) ORDER BY id LIMIT 200`,
      [after],
    );
    if (rows.length === 0) return changed;
    change ??= rewrite(secrets());
    for (const row of rows) {
      const definition = mapSecrets(row.workflow_definition, change);
      await query(`UPDATE agent_versions SET workflow_definition = $2 WHERE id = $1`, [
        row.id,
        JSON.stringify(definition),
      ]);
      changed += 1;
      after = row.id;
    }
  }
}
