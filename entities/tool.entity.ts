import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export type ToolStatus = 'active' | 'archived';

/** An organization's tool, which agent nodes offer the model by `tool_uuid`. */
@Entity('tools')
export class Tool {
  /** The `tool_uuid` of the interface. */
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  /** The definition's `type` (`http_api`, `end_call`, `calculator`). */
  @Column({ type: 'text' })
  category: string;

  @Column({ type: 'text', default: 'active' })
  status: ToolStatus;

  /** `{schema_version, type, config}`, validated when it was saved. */
  @Column({ type: 'jsonb' })
  definition: Record<string, unknown>;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
