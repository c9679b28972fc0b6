import { Column, Entity } from 'typeorm';
import { CreatedEntity } from './base';

/** How a number came onto the list: the API, a CSV import, or the callee's opt-out during a call. */
export type DoNotCallSource = 'api' | 'import' | 'opt_out';

/** A number an organization never dials; (organization, phone_number) is unique. */
@Entity('do_not_call_numbers')
export class DoNotCallNumber extends CreatedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  /** E.164. */
  @Column({ type: 'text' })
  phoneNumber: string;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ type: 'text' })
  source: DoNotCallSource;

  /** The run whose callee opted out (`source` `opt_out`). */
  @Column({ type: 'integer', nullable: true })
  runId: number | null;

  /**
   * Opt-outs: whether the number is surely the person who asked. True for a callee we dialed and an
   * inbound caller whose number the provider verified; false for an inbound caller it did not (the
   * number may be spoofed, listing someone else's). Null for entries added by the API or an import.
   */
  @Column({ type: 'boolean', nullable: true })
  callerIdVerified: boolean | null;
}
