import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Tool } from '../../entities';
import {
  createCredentialRepository,
  type CredentialRepository,
} from '../../entities/repositories/credential.repository';
import { createToolRepository, type ToolRepository } from '../../entities/repositories/tool.repository';
import { AddressRefusedError, checkedAddress, type AddressPolicy } from '../../platform/address-guard';
import { ConflictError, NotFoundError, ValidationError, type ValidationIssue } from '../errors';
import { Quotas } from '../quotas';
import type { Config } from '../../platform/config';
import { providerDefinition, providerDefinitions } from '../../telephony/registry';
import type { RunnableTool } from './tool-runner';
import type { ToolChanges, ToolDefinition, ToolStatusName, ToolType, ToolView } from './types';

export const toolNotFound = (uuid: string) => new NotFoundError(`Tool ${uuid} not found`);

export const toolView = (row: Tool): ToolView => ({
  tool_uuid: row.id,
  name: row.name,
  description: row.description,
  category: row.category as ToolType,
  status: row.status,
  definition: row.definition as unknown as ToolDefinition,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/** The scheme and host of a templated URL: placeholders are allowed in the path and query only. */
function fixedOrigin(template: string): URL | undefined {
  const match = /^(https?):\/\/([^/?#]*)/i.exec(template);
  if (!match || match[2]?.includes('{{') || !match[2]) return undefined;
  try {
    return new URL(`${match[1]}://${match[2]}/`);
  } catch {
    return undefined;
  }
}

export interface ToolsDeps {
  dataSource: DataSource;
  config: Pick<Config, 'ALLOW_PRIVATE_WEBHOOKS' | 'QUOTA_TOOLS'> & ConstructorParameters<typeof Quotas>[0];
  /** DNS, replaceable in tests. */
  resolve?: AddressPolicy['resolve'];
}

/** The organization's tools: stored, listed, archived; checked before they are saved. */
export class ToolsService {
  private readonly quotas: Quotas;
  private readonly tools: ToolRepository;
  private readonly credentials: CredentialRepository;

  constructor(private readonly deps: ToolsDeps) {
    this.quotas = new Quotas(deps.config);
    this.tools = createToolRepository(deps.dataSource);
    this.credentials = createCredentialRepository(deps.dataSource);
  }

  async list(organizationId: number, filter: { status?: ToolStatusName; category?: ToolType }): Promise<ToolView[]> {
    const rows = await this.tools.listOf(organizationId, filter);
    return rows.map(toolView);
  }

  private async find(organizationId: number, uuid: string): Promise<Tool> {
    const row = await this.tools.findOwned(organizationId, uuid);
    if (!row) throw toolNotFound(uuid);
    return row;
  }

  async get(organizationId: number, uuid: string): Promise<ToolView> {
    return toolView(await this.find(organizationId, uuid));
  }

  /**
   * What is wrong with a definition beyond its shape: an HTTP tool's URL must have a fixed scheme and
   * host that is not a private, loopback or metadata address (checked again at every call), and its
   * credential must be the organization's.
   */
  async problems(organizationId: number, definition: ToolDefinition): Promise<ValidationIssue[]> {
    if (definition.type === 'transfer_call') return this.transferProblems(organizationId, definition.config.mode);
    if (definition.type !== 'http_api') return [];
    const issues: ValidationIssue[] = [];
    const loc = ['body', 'definition', 'config'];
    const origin = fixedOrigin(definition.config.url);
    if (!origin) {
      issues.push({
        loc: [...loc, 'url'],
        msg: 'The URL must start with http:// or https:// and a host without placeholders',
        type: 'value_error',
      });
    } else {
      try {
        await checkedAddress(origin.hostname, {
          allowPrivate: this.deps.config.ALLOW_PRIVATE_WEBHOOKS,
          allowSetting: 'ALLOW_PRIVATE_WEBHOOKS',
          resolve: this.deps.resolve,
        });
      } catch (error) {
        // A name that does not resolve now may later; an internal address never becomes public.
        if (error instanceof AddressRefusedError && !/does not resolve/.test(error.message)) {
          issues.push({ loc: [...loc, 'url'], msg: error.message, type: 'value_error' });
        }
      }
    }
    const credential = definition.config.credential_uuid;
    if (credential && !(await this.credentials.findOwned(organizationId, credential))) {
      issues.push({
        loc: [...loc, 'credential_uuid'],
        msg: `Credential ${credential} not found in this organization`,
        type: 'value_error',
      });
    }
    return issues;
  }

  /**
   * A transfer mode every provider the organization calls through must carry out (while it has no
   * telephony configuration yet, some provider must), so a call never learns at transfer time that it cannot.
   */
  private async transferProblems(organizationId: number, mode: 'blind' | 'warm'): Promise<ValidationIssue[]> {
    const providers = await this.tools.telephonyProvidersOf(organizationId);
    const able = (name: string) => providerDefinition(name)?.transferModes.includes(mode) === true;
    const unable = providers.filter((name) => !able(name));
    let msg: string | undefined;
    if (providers.length === 0 && !providerDefinitions.some((definition) => able(definition.name))) {
      msg = `A ${mode} transfer is not supported by any telephony provider`;
    } else if (unable.length > 0) {
      msg = `A ${mode} transfer is not supported by ${unable.join(', ')} (this organization's telephony providers)`;
    }
    return msg ? [{ loc: ['body', 'definition', 'config', 'mode'], msg, type: 'value_error' }] : [];
  }

  private async checked(organizationId: number, changes: ToolChanges): Promise<void> {
    const issues = await this.problems(organizationId, changes.definition);
    if (issues.length > 0) throw new ValidationError(issues);
  }

  async create(organizationId: number, changes: ToolChanges): Promise<ToolView> {
    await this.checked(organizationId, changes);
    const saved = await this.tools.transaction(async (tools, manager) => {
      const inserted = await tools.insert({
        id: randomUUID(),
        organizationId,
        name: changes.name,
        description: changes.description,
        category: changes.definition.type,
        status: 'active',
        definition: changes.definition as unknown as Record<string, unknown>,
      });
      await this.quotas.claim(manager, 'tools', organizationId);
      return inserted;
    });
    return toolView(saved);
  }

  async update(organizationId: number, uuid: string, changes: ToolChanges): Promise<ToolView> {
    const row = await this.find(organizationId, uuid);
    if (row.status === 'archived') throw new ConflictError(`Tool ${uuid} is archived; unarchive it to change it`);
    await this.checked(organizationId, changes);
    Object.assign(row, {
      name: changes.name,
      description: changes.description,
      category: changes.definition.type,
      definition: changes.definition,
    });
    return toolView(await this.tools.save(row));
  }

  /** Archived tools stay stored (agents and runs name them) but cannot be offered to a model. */
  async setStatus(organizationId: number, uuid: string, status: ToolStatusName): Promise<ToolView> {
    const row = await this.find(organizationId, uuid);
    row.status = status;
    return toolView(await this.tools.save(row));
  }
}

/** The organization's active tools among `uuids` (others, archived or unknown, are left out). */
export async function activeTools(dataSource: DataSource, organizationId: number, uuids: string[]): Promise<Tool[]> {
  const valid = uuids.filter((uuid) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid));
  if (valid.length === 0) return [];
  return createToolRepository(dataSource).activeAmong(organizationId, valid);
}

export const runnableTool = (row: Tool): RunnableTool => ({
  toolUuid: row.id,
  name: row.name,
  description: row.description,
  definition: row.definition as unknown as ToolDefinition,
});
