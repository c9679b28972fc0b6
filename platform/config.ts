import { join } from 'node:path';
import { z } from 'zod';
import { decodeSecretsKey } from './secrets-key';

/** `Boolean('false') === true`, so booleans are read from an explicit word list. */
const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], {
      error: 'must be one of true, false, 1, 0, yes, no',
    })
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: port(8000),
  PUBLIC_BASE_URL: z.url().default('http://localhost:8000'),
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
  /** `true` behind a reverse proxy: client addresses (login throttling, logs) come from X-Forwarded-For. */
  TRUST_PROXY: envBoolean(false),
  DEPLOYMENT_MODE: z.string().min(1).default('oss'),
  AUTH_PROVIDER: z.enum(['local']).default('local'),

  /** Unset: `npm start` runs an embedded PostgreSQL and everything connects to it. */
  DATABASE_URL: z.url().optional(),
  EMBEDDED_POSTGRES_PORT: port(54329),
  /** Local state of `npm start`: the embedded PostgreSQL cluster and the Temporal SQLite file. */
  DATA_DIR: z.string().min(1).default('.data'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Two-track WAV recordings of calls, `<run_id>.wav`; unset: `${DATA_DIR}/recordings`. */
  RECORDINGS_DIR: z.string().min(1).optional(),
  /** Set: finished recordings are uploaded to this S3 bucket as `${RECORDINGS_S3_PREFIX}<run_id>.wav`. */
  RECORDINGS_S3_BUCKET: z
    .string()
    .regex(/^[A-Za-z0-9._-]{3,255}$/, { error: 'must be a bucket name (letters, digits, dots, hyphens, underscores)' })
    .optional(),
  RECORDINGS_S3_PREFIX: z
    .string()
    .refine((value) => !value.startsWith('/'), { error: 'must not start with /' })
    .default('recordings/'),
  /** An S3-compatible server (MinIO, Ceph, R2…); unset: AWS S3 of S3_REGION. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** Both or neither; unset: the AWS SDK's default credential chain (AWS_* variables, profiles, instance roles). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** `true`: `<endpoint>/<bucket>/<key>` URLs instead of `<bucket>.<endpoint>/<key>` (MinIO and most self-hosted servers). */
  S3_FORCE_PATH_STYLE: envBoolean(false),

  /** Unset: `npm start` runs `temporal server start-dev` on TEMPORAL_PORT. */
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_PORT: port(7233),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('switchboard'),

  WORKER_METRICS_PORT: port(9464),
  /**
   * The worker's nice value (0–19; 0 leaves it alone). Where the worker shares cores with an API
   * carrying live calls, its bookkeeping (call starts and ends, campaign pacing) waits a little so
   * that the calls' audio does not (bench:voice, docs/BENCHMARKS.md).
   */
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** How long in-flight activities may finish after SIGTERM before they are cancelled. */
  WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /** Prebuilt workflow bundle (`npm run build`); required in production, optional in development. */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),

  TELEPHONY_SIMULATOR: envBoolean(true),
  /**
   * AES-256-GCM key for telephony credentials at rest: 32 bytes, hex or base64. Required in
   * production; elsewhere one is generated once into `${DATA_DIR}/secrets-key`.
   */
  SECRETS_KEY: z
    .string()
    .refine((value) => decodeSecretsKey(value) !== null, { error: 'must be 32 bytes written as hex or base64' })
    .optional(),
  /** Sends every provider API request to this origin instead of the provider's (a mock provider server). */
  TELEPHONY_API_BASE_URL: z.url().optional(),

  /** Key of the post-call webhook signature header; unset: derived from SECRETS_KEY (README "Post-call webhooks"). */
  WEBHOOK_SIGNING_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  /** `true`: post-call webhooks may reach private, loopback and link-local addresses (tests, trusted networks). */
  ALLOW_PRIVATE_WEBHOOKS: envBoolean(false),

  /** `false`: `POST /auth/signup` answers 403; accounts come from ADMIN_EMAIL or an operator. */
  ENABLE_SIGNUP: envBoolean(true),
  /** First-run administrator, created at API start when no user has this email (both or neither). */
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  /** HS256 key for session tokens; required in production. Unset elsewhere: one is kept in DATA_DIR. */
  SESSION_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 366)
    .default(720),
  /** Failed logins allowed per email, and per client address, within the window; then 429. */
  LOGIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(5),
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  LOGIN_FAILURE_WINDOW_MINUTES: z.coerce.number().int().min(1).max(1440).default(15),

  /** OpenAI-compatible endpoint that drafts agents for `POST /workflow/create/template`; unset: a fixed builder. */
  LLM_BASE_URL: z.url().optional(),
  /** Sent as the bearer token; setting it alone uses OpenAI's own endpoint. */
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /** Speech providers (README "Speech providers"); each key unset: that provider is unavailable. */
  DEEPGRAM_API_KEY: z.string().min(1).optional(),
  DEEPGRAM_BASE_URL: z.url().default('https://api.deepgram.com'),
  DEEPGRAM_MODEL: z.string().min(1).default('nova-3'),
  ELEVENLABS_API_KEY: z.string().min(1).optional(),
  ELEVENLABS_BASE_URL: z.url().default('wss://api.elevenlabs.io'),
  ELEVENLABS_MODEL: z.string().min(1).default('eleven_flash_v2_5'),
  ELEVENLABS_VOICE_ID: z.string().min(1).default('21m00Tcm4TlvDq8ikWAM'),
  CARTESIA_API_KEY: z.string().min(1).optional(),
  CARTESIA_BASE_URL: z.url().default('wss://api.cartesia.ai'),
  CARTESIA_MODEL: z.string().min(1).default('sonic-2'),
  CARTESIA_VOICE_ID: z.string().min(1).default('a0e99841-438c-4a64-b679-ae501e7d6091'),
  /** OpenAI speech uses LLM_API_KEY and LLM_BASE_URL; these name its models and default voice. */
  OPENAI_TTS_MODEL: z.string().min(1).default('gpt-4o-mini-tts'),
  OPENAI_TTS_VOICE: z.string().min(1).default('alloy'),
  OPENAI_STT_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  /** Service-wide defaults when an agent's workflow_configurations name none; unset: the first provider with a key. */
  STT_PROVIDER: z.enum(['deepgram', 'openai', 'pocketsphinx']).optional(),
  TTS_PROVIDER: z.enum(['elevenlabs', 'cartesia', 'openai', 'espeak']).optional(),
  /** Usage charges: `charge_usd` = minutes × PRICE_PER_MINUTE_USD + tokens / 1000 × PRICE_PER_1K_TOKENS_USD. */
  PRICE_PER_MINUTE_USD: z.coerce.number().min(0).default(0),
  PRICE_PER_1K_TOKENS_USD: z.coerce.number().min(0).default(0),
});

type ParsedConfig = z.infer<typeof configSchema>;

/** Where local services run when no external address is given. */
export const EMBEDDED_DATABASE = { user: 'switchboard', password: 'switchboard', database: 'switchboard' };

export type Config = Omit<ParsedConfig, 'DATABASE_URL' | 'TEMPORAL_ADDRESS' | 'RECORDINGS_DIR'> & {
  DATABASE_URL: string;
  TEMPORAL_ADDRESS: string;
  RECORDINGS_DIR: string;
  /** True when DATABASE_URL was not given: the embedded PostgreSQL is the database. */
  EMBEDDED_POSTGRES: boolean;
  /** True when TEMPORAL_ADDRESS was not given: the CLI dev server is the Temporal server. */
  EMBEDDED_TEMPORAL: boolean;
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
    const missing = (['DATABASE_URL', 'TEMPORAL_ADDRESS', 'SESSION_SECRET', 'SECRETS_KEY'] as const).filter(
      (name) => !parsed[name],
    );
    if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name}: required in production`));
  }
  if (Boolean(parsed.ADMIN_EMAIL) !== Boolean(parsed.ADMIN_PASSWORD)) {
    throw new ConfigError(['ADMIN_EMAIL, ADMIN_PASSWORD: set both or neither']);
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
    EMBEDDED_POSTGRES: !parsed.DATABASE_URL,
    EMBEDDED_TEMPORAL: !parsed.TEMPORAL_ADDRESS,
  };
}

let loaded: Config | undefined;

/** The process-wide configuration, parsed once on first use. */
export function config(): Config {
  loaded ??= parseConfig();
  return loaded;
}
