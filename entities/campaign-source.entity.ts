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

  /**
   * The range of contact ids this list's contacts were given, kept by a trigger on every write of
   * contacts: the list is read as a primary-key range scan filtered on `source_id` (null: none yet).
   */
  @Column({ type: 'bigint', nullable: true })
  firstContactId: string | null;

  @Column({ type: 'bigint', nullable: true })
  lastContactId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
