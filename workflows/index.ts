export { healthCheckWorkflow } from './health-check.workflow';
export { callWorkflow } from './call.workflow';
