import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { entities } from './index';
import { SnakeNamingStrategy } from './naming-strategy';
import { InitialSchema1795000000000 } from './migrations/1795000000000-InitialSchema';
import { LoginThrottle1795000000100 } from './migrations/1795000000100-LoginThrottle';
import { Telephony1795000000200 } from './migrations/1795000000200-Telephony';
import { AgentTriggersAndRunFilters1795000000500 } from './migrations/1795000000500-AgentTriggersAndRunFilters';
import { CallIdempotencyKeys1795000000700 } from './migrations/1795000000700-CallIdempotencyKeys';
import { InboundLookups1795000001100 } from './migrations/1795000001100-InboundLookups';
import { SpeechCredentials1795000001200 } from './migrations/1795000001200-SpeechCredentials';
import { ContactSourceStatementChecks1795000001300 } from './migrations/1795000001300-ContactSourceStatementChecks';
import { AuthThrottleBackoff1795000002100 } from './migrations/1795000002100-AuthThrottleBackoff';
import { SessionRevocationAndKeyScopes1795000002200 } from './migrations/1795000002200-SessionRevocationAndKeyScopes';
import { WebhookNonces1795000002300 } from './migrations/1795000002300-WebhookNonces';
import { CampaignAttemptsCancelled1795000003000 } from './migrations/1795000003000-CampaignAttemptsCancelled';
import { OrganizationWebhookSecrets1795000003100 } from './migrations/1795000003100-OrganizationWebhookSecrets';
import { QuotaIndexes1795000003200 } from './migrations/1795000003200-QuotaIndexes';
import { DoNotCallAndDialCaps1795000004000 } from './migrations/1795000004000-DoNotCallAndDialCaps';
import { PacingFailoverVoicemail1795000004100 } from './migrations/1795000004100-PacingFailoverVoicemail';
import { Credentials1795000004200 } from './migrations/1795000004200-Credentials';
import { CanonicalPhoneNumbers1795000004600 } from './migrations/1795000004600-CanonicalPhoneNumbers';
import { SecretsCanary1795000004700 } from './migrations/1795000004700-SecretsCanary';
import { DoNotCallListIndexes1795000004800 } from './migrations/1795000004800-DoNotCallListIndexes';
import { Tools1795000005500 } from './migrations/1795000005500-Tools';
import { MediaStreamClaimsAndVerifiedOptOuts1795000005700 } from './migrations/1795000005700-MediaStreamClaimsAndVerifiedOptOuts';
import { DataLifecycle1795000006200 } from './migrations/1795000006200-DataLifecycle';
import { CallTransfers1795000007000 } from './migrations/1795000007000-CallTransfers';
import { PostCallAnalysis1795000007100 } from './migrations/1795000007100-PostCallAnalysis';
import { WebCalls1795000007300 } from './migrations/1795000007300-WebCalls';
import { KnowledgeBase1795000007400 } from './migrations/1795000007400-KnowledgeBase';
import { WebhookSubscriptions1795000007600 } from './migrations/1795000007600-WebhookSubscriptions';
import { SimulatorTransferAudio1795000008200 } from './migrations/1795000008200-SimulatorTransferAudio';
import { CampaignTransfersAndAnalysis1795000008300 } from './migrations/1795000008300-CampaignTransfersAndAnalysis';
import { KnowledgeBaseEmbeddings1795000008500 } from './migrations/1795000008500-KnowledgeBaseEmbeddings';

/** Every migration, oldest first. Listed explicitly so the same list works from source and `dist/`. */
export const migrations = [
  InitialSchema1795000000000,
  LoginThrottle1795000000100,
  Telephony1795000000200,
  AgentTriggersAndRunFilters1795000000500,
  CallIdempotencyKeys1795000000700,
  InboundLookups1795000001100,
  SpeechCredentials1795000001200,
  ContactSourceStatementChecks1795000001300,
  AuthThrottleBackoff1795000002100,
  SessionRevocationAndKeyScopes1795000002200,
  WebhookNonces1795000002300,
  CampaignAttemptsCancelled1795000003000,
  OrganizationWebhookSecrets1795000003100,
  QuotaIndexes1795000003200,
  DoNotCallAndDialCaps1795000004000,
  PacingFailoverVoicemail1795000004100,
  Credentials1795000004200,
  CanonicalPhoneNumbers1795000004600,
  SecretsCanary1795000004700,
  DoNotCallListIndexes1795000004800,
  Tools1795000005500,
  MediaStreamClaimsAndVerifiedOptOuts1795000005700,
  DataLifecycle1795000006200,
  CallTransfers1795000007000,
  PostCallAnalysis1795000007100,
  WebCalls1795000007300,
  KnowledgeBase1795000007400,
  WebhookSubscriptions1795000007600,
  SimulatorTransferAudio1795000008200,
  CampaignTransfersAndAnalysis1795000008300,
  KnowledgeBaseEmbeddings1795000008500,
];

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  applicationName?: string;
  /** PostgreSQL cancels any statement running longer (`statement_timeout`); unset: never. */
  statementTimeoutMs?: number;
  /** PostgreSQL closes a connection idle inside a transaction this long; unset: never. */
  idleInTransactionTimeoutMs?: number;
}

/** The one DataSource shape shared by the API, the worker, the migration script and the tests. */
export function createDataSource({
  url,
  poolSize = 10,
  applicationName = 'switchboard',
  statementTimeoutMs,
  idleInTransactionTimeoutMs,
}: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    applicationName,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 5_000,
      // node-postgres sets these per connection at startup.
      ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
      ...(idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: idleInTransactionTimeoutMs } : {}),
    },
  });
}
