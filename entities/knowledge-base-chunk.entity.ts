import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A passage of a document, found by full-text search (and by its embedding when one was made).
 * Written while the document is processed; searched only once the document is completed.
 */
@Entity('knowledge_base_chunks')
export class KnowledgeBaseChunk {
  @PrimaryColumn({ type: 'uuid' })
  documentId: string;

  /** 0, 1, ... in reading order. */
  @PrimaryColumn({ type: 'integer' })
  position: number;

  @Column({ type: 'integer' })
  organizationId: number;

  /** The headings above the passage, outermost first, joined by ' > '. */
  @Column({ type: 'text', default: '' })
  heading: string;

  @Column({ type: 'text' })
  content: string;

  /** The page it starts on (PDF), else null. */
  @Column({ type: 'integer', nullable: true })
  page: number | null;

  @Column({ type: 'integer' })
  tokenCount: number;

  @Column({ type: 'tsvector', select: false })
  searchVector: string;

  @Column({ type: 'float4', array: true, nullable: true, select: false })
  embedding: number[] | null;
}
