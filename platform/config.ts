import { join } from 'node:path';
import { z } from 'zod';
import { parseJson } from './json';
import { parsePayloadKeys } from './payload-keys';
import { decodeSecretsKey } from './secrets-key';

/** `Boolean('false') === true`, so booleans are read from an explicit word list. */
const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], {
      error: 'must be one of true, false, 1, 0, yes, no',
    })
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** One ICE server of a web call (RTCIceServer). */
export const IceServer = z.object({
  urls: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof IceServer>;
const IceServers = z.array(IceServer);

/** WEB_CALL_ICE_SERVERS as given (the schema has checked it). */
export const iceServersOf = (value: string): IceServer[] => IceServers.parse(parseJson(value));

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

export const configSchema = z.object({
  /** `production` requires DATABASE_URL, TEMPORAL_ADDRESS, SESSION_SECRET, SECRETS_KEY and PAYLOAD_ENCRYPTION_KEYS, and makes the worker load the prebuilt workflow bundle. */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Level of the JSON log lines (pino); `silent` writes none. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * OTLP/HTTP collector origin (e.g. `http://otel-collector:4318`): the API and the worker export
   * their traces to `<origin>/v1/traces`. Unset: no tracing.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),

  /** Address the API listens on. */
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Port the API listens on. */
  PORT: port(8000),
  /** The address providers call back (webhooks, media streams); `/health` reports it as `backend_api_endpoint`. */
  PUBLIC_BASE_URL: z.url().default('http://localhost:8000'),
  /**
   * ICE servers of web calls, for the browser and the API: a JSON array of `{urls, username?, credential?}`.
   * `[]`: host candidates only (localhost, one network); beyond, STUN and TURN (docs/guides/testing-agents.md).
   */
  WEB_CALL_ICE_SERVERS: z
    .string()
    .refine((value) => IceServers.safeParse(parseJson(value)).success, {
      error: 'must be a JSON array of {urls, username?, credential?}',
    })
    .default('[]'),
  /**
   * Origins whose pages may embed the web-call page and open its signalling socket, comma-separated;
   * PUBLIC_BASE_URL's origin always may.
   */
  WEB_CALL_ALLOWED_ORIGINS: z
    .string()
    .refine((value) => value.split(',').every((origin) => /^https?:\/\/[^/\s]+$/.test(origin.trim())), {
      error: 'must be origins (scheme://host[:port]) separated by commas',
    })
    .optional(),
  /** Largest JSON request body, in bytes; larger bodies answer 413. */
  JSON_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Largest contacts CSV accepted by `POST /campaign/sources`, in bytes; larger uploads answer 413. */
  CSV_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(50 * 1024 * 1024),
  /** A contacts CSV arriving slower than this over any 10 seconds is refused (408): slow clients hold no resource for long. */
  CSV_MIN_UPLOAD_BYTES_PER_SECOND: z.coerce.number().int().min(1).default(1024),
  /** CSV imports (contact lists and do-not-call lists alike) writing to PostgreSQL at once, per API process; more wait their turn. */
  CSV_MAX_CONCURRENT_IMPORTS: z.coerce.number().int().min(1).max(50).default(2),
  /** Largest knowledge-base document accepted by `POST /knowledge-base/documents`, in bytes; larger uploads answer 413. */
  KNOWLEDGE_BASE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(25 * 1024 * 1024),
  /** Rows a do-not-call CSV import may hold; a longer file is refused (400) and nothing is stored. */
  DNC_IMPORT_MAX_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
  /** Frequency cap: dials of one number per organization per rolling 24 hours, across campaigns and single calls; 0: no cap. */
  DIAL_CAP_PER_DAY: z.coerce.number().int().min(0).max(1000).default(3),
  /** Frequency cap: dials of one number per organization per rolling 7 days; 0: no cap. */
  DIAL_CAP_PER_WEEK: z.coerce.number().int().min(0).max(10_000).default(10),
  /**
   * How many reverse proxies in front of the API append to X-Forwarded-For (`true`: 1, `false`: 0).
   * The client address (throttling, logs) is the entry the outermost of them added; entries further
   * left are the client's own claims and are ignored.
   */
  TRUST_PROXY: z
    .union([
      z.enum(['true', 'false', 'yes', 'no']).transform((value) => (value === 'true' || value === 'yes' ? 1 : 0)),
      z.coerce.number().int().min(0).max(10),
    ])
    .default(0),
  /** Reported by `/health`. */
  DEPLOYMENT_MODE: z.string().min(1).default('oss'),
  /** Reported by `/health`; accounts are local. */
  AUTH_PROVIDER: z.enum(['local']).default('local'),

  /** Unset: `npm start` runs an embedded PostgreSQL and everything connects to it. */
  DATABASE_URL: z.url().optional(),
  /** Port of `npm start`'s embedded PostgreSQL. */
  EMBEDDED_POSTGRES_PORT: port(54329),
  /** Local state of `npm start`: the embedded PostgreSQL cluster and the Temporal SQLite file. */
  DATA_DIR: z.string().min(1).default('.data'),
  /** PostgreSQL connections in each process's pool; an API process holds one more, listening for live voicemail requests. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** The API's statements are cancelled past this; none of its own come near it. */
  DATABASE_STATEMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  /** An API connection idle inside a transaction this long is closed by PostgreSQL, releasing its locks. */
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /** Two-track WAV recordings of calls, `<run_id>.wav`; unset: `${DATA_DIR}/recordings`. */
  RECORDINGS_DIR: z.string().min(1).optional(),
  /** Set: finished recordings are uploaded to this S3 bucket as `${RECORDINGS_S3_PREFIX}<run_id>.wav`. */
  RECORDINGS_S3_BUCKET: z
    .string()
    .regex(/^[A-Za-z0-9._-]{3,255}$/, { error: 'must be a bucket name (letters, digits, dots, hyphens, underscores)' })
    .optional(),
  /** Start of the recordings' object keys, `<prefix><run_id>.wav`. */
  RECORDINGS_S3_PREFIX: z
    .string()
    .refine((value) => !value.startsWith('/'), { error: 'must not start with /' })
    .default('recordings/'),
  /**
   * Server-side encryption asked for each recording uploaded to S3: `AES256` (S3-managed keys),
   * `aws:kms` (a KMS key: RECORDINGS_S3_KMS_KEY_ID, or the account's `aws/s3` key when unset), or
   * `none` for an S3-compatible server that takes no encryption headers. An upload the server does
   * not confirm as encrypted so is kept on local disk instead.
   */
  RECORDINGS_S3_SSE: z.enum(['AES256', 'aws:kms', 'none']).default('AES256'),
  /** The KMS key (id, ARN or alias) of RECORDINGS_S3_SSE=aws:kms. */
  RECORDINGS_S3_KMS_KEY_ID: z.string().min(1).optional(),
  /** An S3-compatible server (MinIO, Ceph, R2…); unset: AWS S3 of S3_REGION. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** The region S3 requests are signed for. */
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Both or neither; unset: the AWS SDK's default credential chain (AWS_* variables, profiles, instance roles). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  /** Secret of S3_ACCESS_KEY_ID (both or neither). */
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** `true`: `<endpoint>/<bucket>/<key>` URLs instead of `<bucket>.<endpoint>/<key>` (MinIO and most self-hosted servers). */
  S3_FORCE_PATH_STYLE: envBoolean(false),

  /** Unset: `npm start` runs `temporal server start-dev` on TEMPORAL_PORT. */
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  /**
   * Port of `npm start`'s Temporal dev server, and of `npm run start:cluster`'s frontend: the server's
   * other ports move with it (7233 gives upstream's own).
   */
  TEMPORAL_PORT: port(7233),
  /**
   * History shards of `npm run start:cluster`'s and compose's Temporal server. Temporal records the
   * count when its databases are first used and keeps it: a different value later is ignored, and
   * changing it means a new cluster. Choose it for the largest load expected (docs/operations/scaling.md).
   */
  NUM_HISTORY_SHARDS: z.coerce.number().int().min(1).max(16_384).default(4),
  /** Port of the dev server's Web UI. */
  TEMPORAL_UI_PORT: port(8233),
  /**
   * Browser origins allowed to call the codec server (`/codec/encode`, `/codec/decode`): the Temporal
   * UIs operators use, comma-separated. Unset: the local dev server's UI, `http://localhost:<TEMPORAL_UI_PORT>`
   * and `http://127.0.0.1:<TEMPORAL_UI_PORT>`.
   */
  TEMPORAL_UI_ORIGINS: z
    .string()
    .refine((value) => value.split(',').every((origin) => /^https?:\/\/[^/\s]+$/.test(origin.trim())), {
      error: 'must be origins (scheme://host[:port]) separated by commas',
    })
    .optional(),
  /** Namespace of every workflow. */
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** The worker's task queue. */
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('switchboard'),
  /**
   * Temporal Worker Versioning (docs/workflow-versioning.md): the worker runs as version
   * `<TEMPORAL_DEPLOYMENT_NAME>:<package version>+<bundle hash>`, taking new work once promoted
   * (`npm run versioning:promote`); calls stay on the version they started on, campaigns move to the current one.
   */
  TEMPORAL_WORKER_VERSIONING: envBoolean(true),
  /** The worker deployment every worker of this service belongs to (with TEMPORAL_WORKER_VERSIONING). */
  TEMPORAL_DEPLOYMENT_NAME: z.string().min(1).default('switchboard'),

  /** Port of the worker's Prometheus endpoint (`/metrics`, the Temporal SDK's metrics). */
  WORKER_METRICS_PORT: port(9464),
  /**
   * The worker's nice value (0–19; 0 leaves it alone). Where the worker shares cores with an API
   * carrying live calls, its bookkeeping (call starts and ends, campaign pacing) waits a little so
   * that the calls' audio does not (bench:voice in docs/BENCHMARKS.md).
   */
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * Workflows the worker keeps in memory between their tasks (Temporal's sticky cache). A workflow
   * not in it is rebuilt from its history at its next task, which costs CPU; each one in it costs
   * memory (docs/operations/scaling.md). Unset: the SDK's default, about 0.6 per MiB of V8 heap limit.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** How long in-flight activities may finish after SIGTERM before they are cancelled. */
  WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /** Prebuilt workflow bundle (`npm run build`); unset: `dist/workflow-bundle.js` in production, else bundled at start. */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),

  /**
   * Offer the built-in simulator provider (`simulator` telephony configurations). Unset: on, except
   * with NODE_ENV=production, where fake calls have no place unless asked for.
   */
  TELEPHONY_SIMULATOR: z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be one of true, false, 1, 0, yes, no' })
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true' || value === '1' || value === 'yes')),
  /**
   * AES-256-GCM key for telephony credentials at rest: 32 bytes, hex or base64. Required in
   * production; elsewhere one is generated once into `${DATA_DIR}/secrets-key`.
   */
  SECRETS_KEY: z
    .string()
    .refine((value) => decodeSecretsKey(value) !== null, { error: 'must be 32 bytes written as hex or base64' })
    .optional(),
  /**
   * Keys of the Temporal payload codec (docs/SECURITY.md): `id:key` entries separated by commas, each
   * key 32 bytes as hex or base64. The first encrypts every payload Temporal stores; all of them
   * decrypt, so an old key stays listed after the new one until no history needs it. Required in
   * production; elsewhere a public development key (id `development`) is used.
   */
  PAYLOAD_ENCRYPTION_KEYS: z
    .string()
    .refine((value) => parsePayloadKeys(value) !== null, {
      error:
        'must be id:key entries separated by commas (ids of letters, digits, . _ -, unique; keys of 32 bytes as hex or base64)',
    })
    .optional(),
  /** Sends every provider API request to this origin instead of the provider's (a mock provider server). */
  TELEPHONY_API_BASE_URL: z.url().optional(),

  /**
   * After `POST /organizations/webhook-signing-secret/rotate`, how long the previous secret still
   * signs post-call webhooks beside the new one, so receivers can switch without losing deliveries.
   */
  WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .default(86400),
  /**
   * `true`: post-call webhooks also carry the deprecated `X-Switchboard-Signature` (`v1`, which signs
   * the body and timestamp only) beside the `v2` headers; `false` once every receiver checks `v2`.
   */
  WEBHOOK_SIGNATURE_V1: envBoolean(true),
  /** `true`: post-call webhooks may reach private, loopback and link-local addresses (tests, trusted networks). */
  ALLOW_PRIVATE_WEBHOOKS: envBoolean(false),
  /** `true`: ARI endpoints (`ari_endpoint`) may be private, loopback or link-local addresses (a PBX on the LAN). */
  ALLOW_PRIVATE_ARI_ENDPOINTS: envBoolean(false),

  /**
   * The largest `max_concurrency` a campaign may have on this deployment (1 to the API's own bound of
   * 100); a create or PATCH asking for more answers 422, and a campaign stored with more (a redial, or
   * a bound lowered since) cannot start or resume until lowered.
   */
  CAMPAIGN_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(100),
  /**
   * Calls an organization's running campaigns may hold at once: the sum of their `max_concurrency`.
   * Starting or resuming a campaign that would pass it answers 409; paused campaigns hold none. Size
   * it from the worker memory and CPU a call in flight costs (docs/operations/scaling.md).
   */
  ORG_MAX_CALLS_IN_FLIGHT: z.coerce.number().int().min(1).max(1_000_000).default(1000),

  /** Agents an organization may store, archived ones included; past it creating one answers 409 (docs/reference/http-conventions.md). */
  QUOTA_AGENTS: z.coerce.number().int().min(1).default(500),
  /** Versions an agent may have; past it an update that would publish one answers 409. */
  QUOTA_AGENT_VERSIONS: z.coerce.number().int().min(1).default(1000),
  /** Telephony configurations an organization may have; past it creating one answers 409. */
  QUOTA_TELEPHONY_CONFIGURATIONS: z.coerce.number().int().min(1).default(50),
  /** Phone numbers an organization may have, across its configurations; past it adding one answers 409. */
  QUOTA_PHONE_NUMBERS: z.coerce.number().int().min(1).default(5000),
  /** Campaigns an organization may have, redials included; past it creating one answers 409. */
  QUOTA_CAMPAIGNS: z.coerce.number().int().min(1).default(5000),
  /** Contact lists an organization may store (uploads and redial copies); past it uploading one answers 409. */
  QUOTA_CAMPAIGN_SOURCES: z.coerce.number().int().min(1).default(1000),
  /** API keys an organization may have, archived ones included (archiving is final, the row stays); past it creating one answers 409. */
  QUOTA_API_KEYS: z.coerce.number().int().min(1).default(500),
  /** Credentials (named secrets that webhooks and tools send) an organization may store; past it creating one answers 409. */
  QUOTA_CREDENTIALS: z.coerce.number().int().min(1).default(200),
  /** Numbers an organization's do-not-call list may hold; past it adding or importing answers 409. Opt-outs are listed past it. */
  QUOTA_DO_NOT_CALL_NUMBERS: z.coerce.number().int().min(1).default(1_000_000),
  /** Tools an organization may have, archived ones included; past it creating one answers 409. */
  QUOTA_TOOLS: z.coerce.number().int().min(1).default(500),
  /** Knowledge-base documents an organization may store; past it uploading one answers 409. */
  QUOTA_KNOWLEDGE_BASE_DOCUMENTS: z.coerce.number().int().min(1).default(500),
  /** Webhook subscriptions an organization may have; past it creating one answers 409. */
  QUOTA_WEBHOOK_SUBSCRIPTIONS: z.coerce.number().int().min(1).default(50),

  /** `false`: `POST /auth/signup` answers 403; accounts come from ADMIN_EMAIL or an operator. */
  ENABLE_SIGNUP: envBoolean(true),
  /** First-run administrator, created at API start when no user has this email (both or neither). */
  ADMIN_EMAIL: z.email().optional(),
  /** Password of ADMIN_EMAIL (both or neither). */
  ADMIN_PASSWORD: z.string().min(8).optional(),
  /**
   * Secret for the operator routes (`/api/v1/health/deep`, `/metrics`), sent as `X-Operator-Token`.
   * Unset: they answer only to callers on the API's own host, and only when TRUST_PROXY is 0.
   */
  OPERATOR_TOKEN: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  /**
   * bcrypt work factor of new password hashes (2^N rounds, about a quarter of a second of CPU at 12).
   * At least 12 in production; tests lower it, where every case signs up accounts.
   */
  PASSWORD_HASH_ROUNDS: z.coerce.number().int().min(4).max(15).default(12),
  /** HS256 key for session tokens; required in production. Unset elsewhere: one is kept in DATA_DIR. */
  SESSION_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  /** How long a session token from `POST /auth/login` stays valid. */
  SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 366)
    .default(720),
  /** Failed logins per email before each further attempt waits (5 s, doubling up to LOGIN_MAX_BACKOFF_SECONDS); 429 meanwhile. */
  LOGIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(5),
  /** Failed logins per client address before each further attempt from it waits, as per email. */
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  /** Longest wait after a failed login; short, since anyone can fail logins for another's email or a shared address. */
  LOGIN_MAX_BACKOFF_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /** An email or address with no failed login for this long starts again from zero. */
  LOGIN_FAILURE_WINDOW_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),
  /** Signups per client address before each further one waits (5 s, doubling up to SIGNUP_MAX_BACKOFF_SECONDS); 429 meanwhile. */
  SIGNUP_MAX_PER_ADDRESS: z.coerce.number().int().min(1).default(5),
  /** Longest wait between signups from one address. */
  SIGNUP_MAX_BACKOFF_SECONDS: z.coerce.number().int().min(1).max(86400).default(3600),
  /** An address with no signup for this long starts again from zero. */
  SIGNUP_WINDOW_MINUTES: z.coerce.number().int().min(1).max(10080).default(60),

  /**
   * OpenAI-compatible endpoint of the language model that conducts conversations and drafts agents
   * (`POST /workflow/create/template`); with LLM_API_KEY also unset: the offline policy and a fixed builder.
   */
  LLM_BASE_URL: z.url().optional(),
  /** Sent as the bearer token; setting it alone uses OpenAI's own endpoint. */
  LLM_API_KEY: z.string().min(1).optional(),
  /** The model asked, for conversations and for drafting agents. */
  LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /** Deepgram speech-to-text (docs/guides/speech-providers.md); unset: Deepgram is unavailable unless an organization stores its own key. */
  DEEPGRAM_API_KEY: z.string().min(1).optional(),
  /** Deepgram's origin (a local server in tests). */
  DEEPGRAM_BASE_URL: z.url().default('https://api.deepgram.com'),
  /** Deepgram speech-to-text model. */
  DEEPGRAM_MODEL: z.string().min(1).default('nova-3'),
  /** ElevenLabs text-to-speech; unset: ElevenLabs is unavailable unless an organization stores its own key. */
  ELEVENLABS_API_KEY: z.string().min(1).optional(),
  /** ElevenLabs' origin. */
  ELEVENLABS_BASE_URL: z.url().default('wss://api.elevenlabs.io'),
  /** ElevenLabs text-to-speech model. */
  ELEVENLABS_MODEL: z.string().min(1).default('eleven_flash_v2_5'),
  /** ElevenLabs voice when the agent names none. */
  ELEVENLABS_VOICE_ID: z.string().min(1).default('21m00Tcm4TlvDq8ikWAM'),
  /** Cartesia text-to-speech; unset: Cartesia is unavailable unless an organization stores its own key. */
  CARTESIA_API_KEY: z.string().min(1).optional(),
  /** Cartesia's origin. */
  CARTESIA_BASE_URL: z.url().default('wss://api.cartesia.ai'),
  /** Cartesia text-to-speech model. */
  CARTESIA_MODEL: z.string().min(1).default('sonic-2'),
  /** Cartesia voice when the agent names none. */
  CARTESIA_VOICE_ID: z.string().min(1).default('a0e99841-438c-4a64-b679-ae501e7d6091'),
  /** OpenAI text-to-speech model; OpenAI speech uses LLM_API_KEY and LLM_BASE_URL. */
  OPENAI_TTS_MODEL: z.string().min(1).default('gpt-4o-mini-tts'),
  /** OpenAI text-to-speech voice when the agent names none. */
  OPENAI_TTS_VOICE: z.string().min(1).default('alloy'),
  /** OpenAI speech-to-text model. */
  OPENAI_STT_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  /** Service-wide speech-to-text provider when an agent's workflow_configurations name none; unset: the first provider with a key. */
  STT_PROVIDER: z.enum(['deepgram', 'openai', 'pocketsphinx']).optional(),
  /** Service-wide text-to-speech provider when an agent's workflow_configurations name none; unset: the first provider with a key. */
  TTS_PROVIDER: z.enum(['elevenlabs', 'cartesia', 'openai', 'espeak']).optional(),
  /** Usage charges: `charge_usd` = minutes × PRICE_PER_MINUTE_USD + tokens / 1000 × PRICE_PER_1K_TOKENS_USD. */
  PRICE_PER_MINUTE_USD: z.coerce.number().min(0).default(0),
  /** Charge per 1,000 language-model tokens (see PRICE_PER_MINUTE_USD). */
  PRICE_PER_1K_TOKENS_USD: z.coerce.number().min(0).default(0),
});

type ParsedConfig = z.infer<typeof configSchema>;

/** Where local services run when no external address is given. */
export const EMBEDDED_DATABASE = { user: 'switchboard', password: 'switchboard', database: 'switchboard' };

export type Config = Omit<
  ParsedConfig,
  'DATABASE_URL' | 'TEMPORAL_ADDRESS' | 'RECORDINGS_DIR' | 'TELEPHONY_SIMULATOR' | 'TEMPORAL_UI_ORIGINS'
> & {
  TEMPORAL_UI_ORIGINS: string[];
  DATABASE_URL: string;
  TEMPORAL_ADDRESS: string;
  RECORDINGS_DIR: string;
  TELEPHONY_SIMULATOR: boolean;
  /** True when DATABASE_URL was not given: the embedded PostgreSQL is the database. */
  EMBEDDED_POSTGRES: boolean;
  /** True when TEMPORAL_ADDRESS was not given: the CLI dev server is the Temporal server. */
  EMBEDDED_TEMPORAL: boolean;
  /** True when DATA_DIR was given: `npm start` keeps its state there and never moves it. */
  DATA_DIR_CHOSEN: boolean;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming every bad variable (never its value). */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as in most .env files.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const parsed = result.data;
  if (parsed.NODE_ENV === 'production') {
    const missing = (
      ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'SESSION_SECRET', 'SECRETS_KEY', 'PAYLOAD_ENCRYPTION_KEYS'] as const
    ).filter((name) => !parsed[name]);
    if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name}: required in production`));
    if (parsed.PASSWORD_HASH_ROUNDS < 12) throw new ConfigError(['PASSWORD_HASH_ROUNDS: at least 12 in production']);
  }
  if (Boolean(parsed.ADMIN_EMAIL) !== Boolean(parsed.ADMIN_PASSWORD)) {
    throw new ConfigError(['ADMIN_EMAIL, ADMIN_PASSWORD: set both or neither']);
  }
  if (parsed.RECORDINGS_S3_KMS_KEY_ID && parsed.RECORDINGS_S3_SSE !== 'aws:kms') {
    throw new ConfigError(['RECORDINGS_S3_KMS_KEY_ID: only with RECORDINGS_S3_SSE=aws:kms']);
  }
  if (Boolean(parsed.S3_ACCESS_KEY_ID) !== Boolean(parsed.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError(['S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither']);
  }
  const { user, password, database } = EMBEDDED_DATABASE;
  return {
    ...parsed,
    DATABASE_URL:
      parsed.DATABASE_URL ?? `postgres://${user}:${password}@127.0.0.1:${parsed.EMBEDDED_POSTGRES_PORT}/${database}`,
    TEMPORAL_ADDRESS: parsed.TEMPORAL_ADDRESS ?? `127.0.0.1:${parsed.TEMPORAL_PORT}`,
    RECORDINGS_DIR: parsed.RECORDINGS_DIR ?? join(parsed.DATA_DIR, 'recordings'),
    TELEPHONY_SIMULATOR: parsed.TELEPHONY_SIMULATOR ?? parsed.NODE_ENV !== 'production',
    TEMPORAL_UI_ORIGINS: parsed.TEMPORAL_UI_ORIGINS?.split(',').map((origin) => origin.trim()) ?? [
      `http://localhost:${parsed.TEMPORAL_UI_PORT}`,
      `http://127.0.0.1:${parsed.TEMPORAL_UI_PORT}`,
    ],
    EMBEDDED_POSTGRES: !parsed.DATABASE_URL,
    EMBEDDED_TEMPORAL: !parsed.TEMPORAL_ADDRESS,
    DATA_DIR_CHOSEN: cleaned.DATA_DIR !== undefined,
  };
}

let loaded: Config | undefined;

/** The process-wide configuration, parsed once on first use. */
export function config(): Config {
  loaded ??= parseConfig();
  return loaded;
}
