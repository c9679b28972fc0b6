/** What an API key may do; each scope includes the ones before it. Session tokens act as `admin`. */
export const API_KEY_SCOPES = ['read', 'calls', 'admin'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Routes that place calls, run campaigns or talk with an agent in writing: what a `calls` key is for. */
const CALL_PATHS = [/^\/public\/agent\//, /^\/campaign(\/|$)/, /^\/workflow\/\{workflow_id\}\/text-chat\//];

/** POST routes that only read (a search): a `read` key may call them. */
const READING_POSTS = [/^\/knowledge-base\/search$/];

/**
 * The scope a route needs: reading (and searching) needs `read`; placing calls, running campaigns and
 * text chats needs
 * `calls`; everything else (agents, telephony, keys, credentials) needs `admin`.
 */
export function requiredScope(spec: { method: string; path: string }): ApiKeyScope {
  if (spec.method === 'get' || (spec.method === 'post' && READING_POSTS.some((pattern) => pattern.test(spec.path))))
    return 'read';
  return CALL_PATHS.some((pattern) => pattern.test(spec.path)) ? 'calls' : 'admin';
}

export const scopeAllows = (held: ApiKeyScope, needed: ApiKeyScope): boolean =>
  API_KEY_SCOPES.indexOf(held) >= API_KEY_SCOPES.indexOf(needed);
