export { healthCheckWorkflow } from './health-check.workflow';
export { callWorkflow } from './call.workflow';
export { campaignWorkflow } from './campaign.workflow';
export { dataRetentionWorkflow } from './data-retention.workflow';
export { textChatWorkflow } from './text-chat.workflow';
export { analysisWorkflow } from './analysis.workflow';
export { knowledgeBaseDocumentWorkflow } from './knowledge-base-document.workflow';
export { organizationWebhookWorkflow } from './organization-webhook.workflow';
