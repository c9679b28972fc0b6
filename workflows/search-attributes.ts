import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes operators filter by in the Temporal UI; registered at startup. */
export const CampaignIdAttribute = defineSearchAttributeKey('CampaignId', SearchAttributeType.INT);
export const OrganizationIdAttribute = defineSearchAttributeKey('OrganizationId', SearchAttributeType.INT);
export const AgentIdAttribute = defineSearchAttributeKey('AgentId', SearchAttributeType.INT);
export const CampaignStateAttribute = defineSearchAttributeKey('CampaignState', SearchAttributeType.KEYWORD);
/** A call's terminal status (`completed`, `busy`, `no-answer`, …) and disposition, set when it ends. */
export const CallStatusAttribute = defineSearchAttributeKey('CallStatus', SearchAttributeType.KEYWORD);
export const DispositionAttribute = defineSearchAttributeKey('Disposition', SearchAttributeType.KEYWORD);

export const customSearchAttributes = [
  CampaignIdAttribute,
  OrganizationIdAttribute,
  AgentIdAttribute,
  CampaignStateAttribute,
  CallStatusAttribute,
  DispositionAttribute,
];
