import type { KnowledgeBaseFileType } from '../../entities/knowledge-base-document.entity';
import { InvalidError } from '../errors';

/** PostgreSQL's built-in text search configurations: the languages chunks can be indexed in. */
export const SEARCH_LANGUAGES = [
  'simple',
  'arabic',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
] as const;
export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

export const FILE_TYPES_BY_EXTENSION: Record<string, KnowledgeBaseFileType> = {
  pdf: 'pdf',
  docx: 'docx',
  txt: 'txt',
  md: 'markdown',
  markdown: 'markdown',
  json: 'json',
};

/** The file's type by its name's extension, or undefined when it is not one the knowledge base reads. */
export function fileTypeOf(fileName: string): KnowledgeBaseFileType | undefined {
  const extension = /\.([a-z0-9]+)$/i.exec(fileName.trim())?.[1]?.toLowerCase();
  return extension === undefined ? undefined : FILE_TYPES_BY_EXTENSION[extension];
}

/** Refuses a file whose first bytes contradict its extension (a PDF starts `%PDF-`, a DOCX is a ZIP). */
export function checkSignature(type: KnowledgeBaseFileType, head: Buffer): void {
  if (type === 'pdf' && !head.subarray(0, 1024).includes('%PDF-')) {
    throw new InvalidError('The file is named .pdf but is not a PDF');
  }
  if (type === 'docx' && !(head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04)) {
    throw new InvalidError('The file is named .docx but is not a DOCX (ZIP) file');
  }
}
