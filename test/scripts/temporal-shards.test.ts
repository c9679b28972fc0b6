import { historyShardCount, shardCountMismatch } from '../../scripts/temporal-cluster';
import { testEnv } from '../helpers/test-env';

/** A NUM_HISTORY_SHARDS that differs from what the cluster keeps is told, since Temporal ignores it. */
it('reads the count a running cluster keeps, and names both counts when the setting differs from it', async () => {
  const kept = await historyShardCount(testEnv('temporalAddress'));
  expect(Number.isInteger(kept) && kept >= 1).toBe(true);
  expect(shardCountMismatch(kept, kept)).toBeUndefined();
  expect(shardCountMismatch(kept * 512, kept)).toBe(
    `NUM_HISTORY_SHARDS is ${kept * 512}, but this Temporal cluster was created with ${kept} history shards and ` +
      `keeps them: the setting only takes effect on new databases (a new Temporal cluster). Set it back to ${kept} ` +
      'to silence this.',
  );
});
