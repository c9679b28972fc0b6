import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';

export const DATA_RETENTION_SCHEDULE_ID = 'data-retention';

/**
 * Creates the hourly retention sweep's Schedule unless it exists (every worker start calls this;
 * the first one creates it). One sweep at a time: an overlapping start is skipped.
 */
export async function ensureDataRetentionSchedule(
  client: Client,
  taskQueue: string,
  scheduleId = DATA_RETENTION_SCHEDULE_ID,
): Promise<'created' | 'exists'> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      action: {
        type: 'startWorkflow',
        // By type name: the worker process loads workflow code only into its bundle.
        workflowType: 'dataRetentionWorkflow',
        workflowId: `${scheduleId}-sweep`,
        taskQueue,
        args: [{}],
      },
      memo: { description: "Erases runs' recordings and transcripts past each organization's retention_days" },
    });
    return 'created';
  } catch (error) {
    if (error instanceof ScheduleAlreadyRunning) return 'exists';
    throw error;
  }
}
