import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** An uploaded contact list. Its id is the `source_id` campaigns refer to. */
@Entity('campaign_sources')
export class CampaignSource {
  /** `src_<uuid>`: a string, as the interface's `source_id` is. */
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'text' })
  fileName: string;

  @Column({ type: 'integer' })
  totalRows: number;

  /** Normalized header names, in file order. */
  @Column({ type: 'jsonb' })
  columns: string[];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
