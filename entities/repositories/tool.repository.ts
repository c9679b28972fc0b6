import { In, type DataSource, type DeepPartial, type EntityManager } from 'typeorm';
import { Tool, type ToolStatus } from '../tool.entity';
import { repositoryOver } from './repository';

/** The reads and writes of an organization's tools. */
export function toolStatements(manager: EntityManager) {
  const rows = manager.getRepository(Tool);
  return {
    /** Newest first, optionally only those of a status or category. */
    listOf(organizationId: number, filter: { status?: ToolStatus; category?: string }): Promise<Tool[]> {
      return rows.find({ where: { organizationId, ...filter }, order: { createdAt: 'DESC', id: 'ASC' } });
    },

    /** The organization's tool with that uuid; null when it is missing or another organization's. */
    findOwned(organizationId: number, uuid: string): Promise<Tool | null> {
      return rows.findOneBy({ organizationId, id: uuid });
    },

    /** The organization's tools among these (well-formed) uuids, archived ones included. */
    findAmong(organizationId: number, uuids: string[]): Promise<Tool[]> {
      return rows.findBy({ organizationId, id: In(uuids) });
    },

    /** The organization's active tools among these (well-formed) uuids. */
    activeAmong(organizationId: number, uuids: string[]): Promise<Tool[]> {
      return rows.findBy({ organizationId, id: In(uuids), status: 'active' });
    },

    insert(fields: DeepPartial<Tool>): Promise<Tool> {
      return rows.save(rows.create(fields));
    },

    save(row: Tool): Promise<Tool> {
      return rows.save(row);
    },

    /** The telephony providers the organization's configurations use, by name. */
    async telephonyProvidersOf(organizationId: number): Promise<string[]> {
      const found = await manager.query<{ provider: string }[]>(
        'SELECT DISTINCT provider FROM telephony_configurations WHERE organization_id = $1 ORDER BY provider',
        [organizationId],
      );
      return found.map((row) => row.provider);
    },
  };
}

export type ToolStatements = ReturnType<typeof toolStatements>;

export const createToolRepository = (dataSource: DataSource) => repositoryOver(dataSource, toolStatements);

export type ToolRepository = ReturnType<typeof createToolRepository>;
