import { CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** Integer ids, as the interface exposes them, and a creation time in `timestamptz`. */
export abstract class CreatedEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}

/** Adds `updated_at`, kept current by TypeORM on every save. */
export abstract class TimestampedEntity extends CreatedEntity {
  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
