import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes operators filter by in the Temporal UI; registered at startup. */
export const CampaignIdAttribute = defineSearchAttributeKey('CampaignId', SearchAttributeType.INT);
export const OrganizationIdAttribute = defineSearchAttributeKey('OrganizationId', SearchAttributeType.INT);
export const AgentIdAttribute = defineSearchAttributeKey('AgentId', SearchAttributeType.INT);
export const CampaignStateAttribute = defineSearchAttributeKey('CampaignState', SearchAttributeType.KEYWORD);

export const customSearchAttributes = [
  CampaignIdAttribute,
  OrganizationIdAttribute,
  AgentIdAttribute,
  CampaignStateAttribute,
];
