import { Agent } from './agent.entity';
import { AgentTrigger } from './agent-trigger.entity';
import { AgentVersion } from './agent-version.entity';
import { ApiKey } from './api-key.entity';
import { CallIdempotencyKey } from './call-idempotency-key.entity';
import { Campaign } from './campaign.entity';
import { CampaignAttempt } from './campaign-attempt.entity';
import { CampaignContact } from './campaign-contact.entity';
import { CampaignLog } from './campaign-log.entity';
import { CampaignSource } from './campaign-source.entity';
import { Credential } from './credential.entity';
import { DialClaim } from './dial-claim.entity';
import { DoNotCallNumber } from './do-not-call-number.entity';
import { KnowledgeBaseChunk } from './knowledge-base-chunk.entity';
import { KnowledgeBaseDocument } from './knowledge-base-document.entity';
import { Organization } from './organization.entity';
import { PhoneNumber } from './phone-number.entity';
import { Run } from './run.entity';
import { SimulatorCall } from './simulator-call.entity';
import { SpeechCredential } from './speech-credential.entity';
import { TelephonyConfiguration } from './telephony-configuration.entity';
import { Tool } from './tool.entity';
import { User } from './user.entity';

export {
  Agent,
  AgentTrigger,
  AgentVersion,
  ApiKey,
  CallIdempotencyKey,
  Campaign,
  CampaignAttempt,
  CampaignContact,
  CampaignLog,
  CampaignSource,
  Credential,
  DialClaim,
  DoNotCallNumber,
  KnowledgeBaseChunk,
  KnowledgeBaseDocument,
  Organization,
  PhoneNumber,
  Run,
  SimulatorCall,
  SpeechCredential,
  TelephonyConfiguration,
  Tool,
  User,
};

export const entities = [
  Agent,
  AgentTrigger,
  AgentVersion,
  ApiKey,
  CallIdempotencyKey,
  Campaign,
  CampaignAttempt,
  CampaignContact,
  CampaignLog,
  CampaignSource,
  Credential,
  DialClaim,
  DoNotCallNumber,
  KnowledgeBaseChunk,
  KnowledgeBaseDocument,
  Organization,
  PhoneNumber,
  Run,
  SimulatorCall,
  SpeechCredential,
  TelephonyConfiguration,
  Tool,
  User,
];
