import { CanonicalPhoneNumbers1795000004600 } from '../../entities/migrations/1795000004600-CanonicalPhoneNumbers';
import { DoNotCallListIndexes1795000004800 } from '../../entities/migrations/1795000004800-DoNotCallListIndexes';
import { signUp, type SignedUp } from '../helpers/accounts';
import { createAgent, insertRun } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();
const query = <T>(sql: string, parameters: unknown[] = []) => services.db.dataSource.query<T[]>(sql, parameters);

let owner: SignedUp;
let other: SignedUp;

beforeAll(async () => {
  owner = await signUp(services.server());
  other = await signUp(services.server());
});

const list = async (who: SignedUp, phoneNumber: string, reason: string): Promise<number> => {
  const [row] = await query<{ id: number }>(
    `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source) VALUES ($1, $2, $3, 'api')
     RETURNING id`,
    [who.user.organization_id, phoneNumber, reason],
  );
  return row?.id ?? -1;
};

const runUp = async (): Promise<void> => {
  const runner = services.db.dataSource.createQueryRunner();
  try {
    await new CanonicalPhoneNumbers1795000004600().up(runner);
  } finally {
    await runner.release();
  }
};

describe('the migration to canonical phone numbers', () => {
  it('rewrites stored numbers in canonical E.164, merges list entries that meet, and leaves unreadable ones', async () => {
    // As rows written before numbers were normalized could hold them: the national prefix kept.
    const typedFirst = await list(owner, '+4402079460958', 'typed first');
    const canonicalLater = await list(owner, '+442079460958', 'canonical later');
    const canonicalFirst = await list(owner, '+442079460957', 'canonical first');
    const typedLater = await list(owner, '+4402079460957', 'typed later');
    const unreadable = await list(owner, '+999123456', 'no such country');
    const elsewhere = await list(other, '+4402079460958', 'other organization');
    await query(`INSERT INTO dial_claims (organization_id, phone_number, dial_key) VALUES ($1, $2, $3)`, [
      owner.user.organization_id,
      '+4402079460958',
      `migration-test-${Date.now()}`,
    ]);
    const agent = await createAgent(services.server(), owner.token);
    const base = {
      organizationId: owner.user.organization_id,
      workflowId: agent.id,
      definitionId: agent.current_definition_id,
    };
    const outbound = await insertRun(services.db.dataSource, {
      ...base,
      calledNumber: '+4402079460958',
      callerNumber: '+14155550100',
    });
    const inbound = await insertRun(services.db.dataSource, {
      ...base,
      callType: 'inbound',
      callerNumber: '+4402079460956',
      calledNumber: 'sip:agent@example.com',
    });
    const withheld = await insertRun(services.db.dataSource, {
      ...base,
      callType: 'inbound',
      callerNumber: 'anonymous',
    });

    await runUp();

    const entries = await query<{ id: number; organization_id: number; phone_number: string; reason: string }>(
      `SELECT id, organization_id, phone_number, reason FROM do_not_call_numbers
        WHERE organization_id = ANY($1) ORDER BY id`,
      [[owner.user.organization_id, other.user.organization_id]],
    );
    expect(entries).toEqual([
      {
        id: typedFirst,
        organization_id: owner.user.organization_id,
        phone_number: '+442079460958',
        reason: 'typed first',
      },
      {
        id: canonicalFirst,
        organization_id: owner.user.organization_id,
        phone_number: '+442079460957',
        reason: 'canonical first',
      },
      {
        id: unreadable,
        organization_id: owner.user.organization_id,
        phone_number: '+999123456',
        reason: 'no such country',
      },
      {
        id: elsewhere,
        organization_id: other.user.organization_id,
        phone_number: '+442079460958',
        reason: 'other organization',
      },
    ]);
    expect([canonicalLater, typedLater].some((id) => entries.some((entry) => entry.id === id))).toBe(false);

    const claims = await query<{ phone_number: string }>(
      `SELECT phone_number FROM dial_claims WHERE organization_id = $1`,
      [owner.user.organization_id],
    );
    expect(claims).toEqual([{ phone_number: '+442079460958' }]);

    const runs = await query<{
      id: number;
      called_number: string | null;
      caller_number: string | null;
      initial_context: Record<string, unknown>;
    }>(`SELECT id, called_number, caller_number, initial_context FROM runs WHERE id = ANY($1) ORDER BY id`, [
      [outbound, inbound, withheld],
    ]);
    expect(runs).toEqual([
      {
        id: outbound,
        called_number: '+442079460958',
        caller_number: '+14155550100',
        initial_context: { called_number: '+442079460958', caller_number: '+14155550100' },
      },
      {
        id: inbound,
        called_number: 'sip:agent@example.com',
        caller_number: '+442079460956',
        initial_context: { called_number: 'sip:agent@example.com', caller_number: '+442079460956' },
      },
      {
        id: withheld,
        called_number: null,
        caller_number: 'anonymous',
        initial_context: { caller_number: 'anonymous' },
      },
    ]);

    // Run again, it finds nothing left to change.
    await runUp();
    expect(
      await query(`SELECT count(*)::int AS count FROM do_not_call_numbers WHERE organization_id = $1`, [
        owner.user.organization_id,
      ]),
    ).toEqual([{ count: 3 }]);
  });

  it('the do-not-call list indexes are reversible', async () => {
    const runner = services.db.dataSource.createQueryRunner();
    const indexes = async () =>
      (
        await query<{ indexname: string }>(
          `SELECT indexname FROM pg_indexes WHERE tablename = 'do_not_call_numbers' AND indexname LIKE '%_idx'
            ORDER BY indexname`,
        )
      ).map((row) => row.indexname);
    try {
      const before = await indexes();
      expect(before).toEqual([
        'do_not_call_numbers_number_prefix_idx',
        'do_not_call_numbers_organization_id_id_idx',
        'do_not_call_numbers_reason_prefix_idx',
      ]);
      await new DoNotCallListIndexes1795000004800().down(runner);
      expect(await indexes()).toEqual([]);
      await new DoNotCallListIndexes1795000004800().up(runner);
      expect(await indexes()).toEqual(before);
    } finally {
      await runner.release();
    }
  });
});
