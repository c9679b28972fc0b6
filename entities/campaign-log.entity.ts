import { Column, Entity } from 'typeorm';
import { CreatedEntity } from './base';

/** A campaign's `logs[]` entry; `created_at` is its `ts`. */
@Entity('campaign_logs')
export class CampaignLog extends CreatedEntity {
  @Column({ type: 'integer' })
  campaignId: number;

  @Column({ type: 'text' })
  level: 'info' | 'warning' | 'error';

  @Column({ type: 'text' })
  event: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'jsonb', default: {} })
  details: Record<string, unknown>;
}
