import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One data row of a contact list. */
@Entity('campaign_contacts')
export class CampaignContact {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  sourceId: string;

  /** 1-based data row number in the uploaded file (the header is row 0). */
  @Column({ type: 'integer' })
  rowNumber: number;

  /** E.164. */
  @Column({ type: 'text' })
  phoneNumber: string;

  /** The contact's own IANA timezone for schedule windows, from an optional `timezone` column. */
  @Column({ type: 'text', nullable: true })
  timezone: string | null;

  /** Every other column of the row (`json`: stored once and read back whole). */
  @Column({ type: 'json', default: {} })
  initialContext: Record<string, unknown>;
}
