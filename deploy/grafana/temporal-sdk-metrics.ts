/**
 * The Temporal SDK (1.24) worker metrics the dashboard reads, as the worker's Prometheus endpoint
 * names them with `metricPrefix: 'temporal_'` (workers/main.ts): counters without `_total`,
 * latencies as histograms in milliseconds. A counter appears once it was first incremented.
 */
export const TEMPORAL_SDK_METRICS = [
  'temporal_activity_execution_failed',
  'temporal_activity_execution_latency',
  'temporal_local_activity_execution_failed',
  'temporal_local_activity_execution_latency',
  'temporal_workflow_task_execution_latency',
  'temporal_workflow_task_schedule_to_start_latency',
  'temporal_worker_task_slots_used',
  'temporal_workflow_completed',
  'temporal_workflow_failed',
] as const;
