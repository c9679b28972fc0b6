export { healthCheckWorkflow } from './health-check.workflow';
export { callWorkflow } from './call.workflow';
export { campaignWorkflow } from './campaign.workflow';
export { dataRetentionWorkflow } from './data-retention.workflow';
export { organizationWebhookWorkflow } from './organization-webhook.workflow';
