import { AgentVersionCache } from '../../domain/agents/version-cache';
import { signUp } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

/** Counts the statements sent through the data source while `run` runs. */
async function countQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const dataSource = services.db.dataSource;
  const original = dataSource.query.bind(dataSource);
  let queries = 0;
  dataSource.query = ((...args: Parameters<typeof original>) => {
    queries += 1;
    return original(...args);
  }) as typeof dataSource.query;
  try {
    return { result: await run(), queries };
  } finally {
    dataSource.query = original;
  }
}

describe('AgentVersionCache', () => {
  let versionIds: [number, number, number];

  beforeAll(async () => {
    const app = services.server();
    const owner = await signUp(app);
    const agents = await Promise.all(
      ['First', 'Second', 'Third'].map((name) =>
        createAgent(app, owner.token, sampleDefinition(`Hello from ${name}.`), name),
      ),
    );
    const [first, second, third] = agents.map((agent) => agent.current_definition_id);
    if (first === undefined || second === undefined || third === undefined) throw new Error('three agents expected');
    versionIds = [first, second, third];
  });

  it('reads a version once, however many calls ask for it at the same time', async () => {
    const cache = new AgentVersionCache(services.db.dataSource);
    const { result, queries } = await countQueries(() => Promise.all([1, 2, 3].map(() => cache.get(versionIds[0]))));
    const [first, , third] = result;
    expect(queries).toBe(1);
    expect(first).toBe(third);
    expect(JSON.stringify(first?.workflowDefinition)).toContain('Hello from First.');
  });

  it('hands out frozen contents, so no call can change what the next one reads', async () => {
    const cache = new AgentVersionCache(services.db.dataSource);
    const content = await cache.get(versionIds[0]);
    const nodes = content.workflowDefinition.nodes as { data: { prompt: string } }[];
    const [start] = nodes;
    if (!start) throw new Error('the sample definition has nodes');
    expect(() => {
      start.data.prompt = 'changed';
    }).toThrow(TypeError);
    expect(Object.isFrozen(content.workflowConfigurations)).toBe(true);
  });

  it('forgets the least recently used version beyond its size', async () => {
    const cache = new AgentVersionCache(services.db.dataSource, 2);
    await cache.get(versionIds[0]);
    await cache.get(versionIds[1]);
    await cache.get(versionIds[0]); // now the most recently used
    await cache.get(versionIds[2]); // evicts versionIds[1]
    const again = await countQueries(() => Promise.all([cache.get(versionIds[0]), cache.get(versionIds[2])]));
    expect(again.queries).toBe(0);
    const evicted = await countQueries(() => cache.get(versionIds[1]));
    expect(evicted.queries).toBe(1);
  });

  it('does not remember a failed read', async () => {
    const cache = new AgentVersionCache(services.db.dataSource);
    await expect(cache.get(2_000_000_000)).rejects.toThrow('Agent version 2000000000 does not exist');
    const retried = await countQueries(() => cache.get(2_000_000_000).catch(() => null));
    expect(retried.queries).toBe(1);
  });
});
