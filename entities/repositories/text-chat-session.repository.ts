import type { DataSource, EntityManager } from 'typeorm';
import { Run } from '../run.entity';
import { repositoryOver } from './repository';

/** A text chat's run: its `mode`. */
export const TEXT_CHAT_MODE = 'text_chat';

/** The runs of text chat sessions: opened, named, found by who may see them. */
export function textChatSessionStatements(manager: EntityManager) {
  const runs = manager.getRepository(Run);
  return {
    /** The session's run of the organization's agent; null otherwise. */
    findSession(ref: { organizationId: number; agentId: number; runId: number }): Promise<Run | null> {
      return runs.findOneBy({
        id: ref.runId,
        agentId: ref.agentId,
        organizationId: ref.organizationId,
        provider: TEXT_CHAT_MODE,
      });
    },

    /** A running session's run, not yet named; its id. */
    async insertSession(session: {
      organizationId: number;
      agentId: number;
      agentVersionId: number;
      initialContext: Record<string, unknown>;
    }): Promise<number> {
      const [row] = await manager.query<{ id: number }[]>(
        `INSERT INTO runs (name, organization_id, workflow_id, definition_id, mode, call_type, state, initial_context)
       VALUES ('', $1, $2, $3, $4, 'inbound', 'running', $5) RETURNING id`,
        [
          session.organizationId,
          session.agentId,
          session.agentVersionId,
          TEXT_CHAT_MODE,
          JSON.stringify(session.initialContext),
        ],
      );
      if (!row) throw new Error('PostgreSQL gave no run id');
      return row.id;
    },

    async nameSession(runId: number, name: string, temporalWorkflowId: string): Promise<void> {
      await manager.query(`UPDATE runs SET name = $2, temporal_workflow_id = $3 WHERE id = $1`, [
        runId,
        name,
        temporalWorkflowId,
      ]);
    },

    /** Concludes the run of a session whose workflow never started: `call_status` `error`. */
    async concludeUnstarted(runId: number): Promise<void> {
      await runs.update(
        { id: runId },
        {
          isCompleted: true,
          state: 'completed',
          gatheredContext: { call_status: 'error', mapped_call_disposition: 'error' },
        },
      );
    },
  };
}

export const createTextChatSessionRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, textChatSessionStatements);

export type TextChatSessionRepository = ReturnType<typeof createTextChatSessionRepository>;
