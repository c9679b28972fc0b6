import { AgentTriggersAndRunFilters1795000000500 } from '../../entities/migrations/1795000000500-AgentTriggersAndRunFilters';
import { signUp } from '../helpers/accounts';
import { createAgent } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

const present = async (name: string): Promise<boolean> => {
  const [row] = await services.db.dataSource.query<{ present: boolean }[]>(
    `SELECT to_regclass($1) IS NOT NULL AS present`,
    [name],
  );
  return row?.present ?? false;
};

describe('the runs filter-column trigger', () => {
  it('keeps caller_number, called_number and disposition equal to the JSON fields, whichever is written', async () => {
    const app = services.server();
    const owner = await signUp(app);
    const agent = await createAgent(app, owner.token);
    const insert = (columns: string, values: string) =>
      services.db.dataSource.query<
        {
          caller_number: string;
          called_number: string;
          disposition: string;
          initial_context: object;
          gathered_context: object;
        }[]
      >(
        `INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, ${columns})
         VALUES ($1, $2, $3, 'run', 'simulator', ${values})
         RETURNING caller_number, called_number, disposition, initial_context, gathered_context`,
        [owner.user.organization_id, agent.id, agent.current_definition_id],
      );

    const [fromJson] = await insert(
      'caller_number, initial_context, gathered_context',
      `'+10000000000', '{"caller_number": "+12025550000", "called_number": "+14155550100"}',
       '{"mapped_call_disposition": "busy"}'`,
    );
    expect(fromJson).toMatchObject({
      caller_number: '+12025550000',
      called_number: '+14155550100',
      disposition: 'busy',
    });

    const [fromColumns] = await insert(
      'caller_number, called_number, disposition, initial_context',
      `'+12025550001', '+14155550101', 'XFER', '{"name": "Ada"}'`,
    );
    expect(fromColumns).toEqual({
      caller_number: '+12025550001',
      called_number: '+14155550101',
      disposition: 'XFER',
      initial_context: { name: 'Ada', caller_number: '+12025550001', called_number: '+14155550101' },
      gathered_context: { mapped_call_disposition: 'XFER' },
    });

    await services.db.dataSource.query(
      `UPDATE runs SET gathered_context = '{"mapped_call_disposition": "voicemail"}' WHERE called_number = '+14155550101'`,
    );
    const [updated] = await services.db.dataSource.query<{ disposition: string }[]>(
      `SELECT disposition FROM runs WHERE called_number = '+14155550101'`,
    );
    expect(updated?.disposition).toBe('voicemail');
  });
});

it('AgentTriggersAndRunFilters migration is reversible', async () => {
  const migration = new AgentTriggersAndRunFilters1795000000500();
  const runner = services.db.dataSource.createQueryRunner();
  try {
    expect(await present('agent_triggers')).toBe(true);
    expect(await present('runs_called_number_trgm_idx')).toBe(true);
    await migration.down(runner);
    expect(await present('agent_triggers')).toBe(false);
    expect(await present('runs_called_number_trgm_idx')).toBe(false);
    await migration.up(runner);
    expect(await present('agent_triggers')).toBe(true);
    expect(await present('runs_called_number_trgm_idx')).toBe(true);
  } finally {
    await runner.release();
  }
});
