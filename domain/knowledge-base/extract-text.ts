import mammoth from 'mammoth';
import type { KnowledgeBaseFileType } from '../../entities/knowledge-base-document.entity';
import { pdfPageTexts, PdfTextError } from './pdf-text';
import { htmlBlocks, jsonBlocks, markdownBlocks, plainTextBlocks, type ExtractedText } from './text-blocks';

/** The file cannot be read as its type says, or holds no text: the document fails with this reason. */
export class ExtractionError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ExtractionError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeText(content: Buffer): string {
  try {
    return utf8.decode(content).replace(/^\uFEFF/, '');
  } catch {
    throw new ExtractionError('The file is not UTF-8 text');
  }
}

/** Headings and paragraphs of a stored file, in reading order; PDF blocks carry their page. */
export async function extractText(type: KnowledgeBaseFileType, content: Buffer): Promise<ExtractedText> {
  let extracted: ExtractedText;
  switch (type) {
    case 'pdf': {
      let pages: string[];
      try {
        pages = await pdfPageTexts(content);
      } catch (error) {
        if (error instanceof PdfTextError) throw new ExtractionError(`The PDF could not be read: ${error.message}`);
        throw error;
      }
      extracted = { blocks: pages.flatMap((text, index) => plainTextBlocks(text, index + 1)), pageCount: pages.length };
      break;
    }
    case 'docx': {
      let html: string;
      try {
        html = (await mammoth.convertToHtml({ buffer: content })).value;
      } catch (error) {
        throw new ExtractionError(`The DOCX file could not be read: ${(error as Error).message}`);
      }
      extracted = { blocks: htmlBlocks(html), pageCount: null };
      break;
    }
    case 'markdown':
      extracted = { blocks: markdownBlocks(decodeText(content)), pageCount: null };
      break;
    case 'txt':
      extracted = { blocks: plainTextBlocks(decodeText(content)), pageCount: null };
      break;
    case 'json': {
      let value: unknown;
      try {
        value = JSON.parse(decodeText(content));
      } catch (error) {
        if (error instanceof ExtractionError) throw error;
        throw new ExtractionError(`The JSON file does not parse: ${(error as Error).message}`);
      }
      extracted = { blocks: jsonBlocks(value), pageCount: null };
      break;
    }
  }
  if (!extracted.blocks.some((block) => block.kind === 'paragraph')) {
    throw new ExtractionError(
      type === 'pdf'
        ? 'The PDF has no text layer (scanned pages need OCR, which is not done)'
        : 'The file holds no text',
    );
  }
  return extracted;
}
