import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An organization's own API key for one speech provider; at most one per provider. */
@Entity('speech_credentials')
export class SpeechCredential {
  @PrimaryColumn({ type: 'integer' })
  organizationId: number;

  /** `cartesia`, `deepgram`, `elevenlabs` or `openai` (a CHECK constraint keeps it so). */
  @PrimaryColumn({ type: 'text' })
  provider: string;

  /** The key sealed with AES-256-GCM under SECRETS_KEY (`v1.…`); never the key itself. */
  @Column({ type: 'text' })
  encryptedApiKey: string;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
