import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import PDFDocument from 'pdfkit';
import request from 'supertest';
import type { TestServer } from './accounts';
import { waitFor } from './wait-for';

/** A titled section of a generated document. */
export interface Section {
  heading: string;
  paragraphs: string[];
}

/** A real PDF (pdfkit), one page per entry of `pages`, each page's sections in order. */
export function makePdf(pages: Section[][]): Promise<Buffer> {
  const pdf = new PDFDocument({ autoFirstPage: false });
  const parts: Buffer[] = [];
  pdf.on('data', (part: Buffer) => parts.push(part));
  const ended = new Promise<void>((resolve) => pdf.on('end', () => resolve()));
  for (const sections of pages) {
    pdf.addPage();
    for (const section of sections) {
      pdf.fontSize(18).text(section.heading);
      for (const paragraph of section.paragraphs) pdf.fontSize(11).text(paragraph).moveDown(0.5);
    }
  }
  pdf.end();
  return ended.then(() => Buffer.concat(parts));
}

/** A real DOCX (docx), each section's heading a Heading 1. */
export function makeDocx(sections: Section[]): Promise<Buffer> {
  const document = new Document({
    sections: [
      {
        children: sections.flatMap((section) => [
          new Paragraph({ text: section.heading, heading: HeadingLevel.HEADING_1 }),
          ...section.paragraphs.map((paragraph) => new Paragraph(paragraph)),
        ]),
      },
    ],
  });
  return Packer.toBuffer(document);
}

export const makeMarkdown = (sections: Section[]): Buffer =>
  Buffer.from(sections.map((section) => `## ${section.heading}\n\n${section.paragraphs.join('\n\n')}\n`).join('\n'));

/** Uploads a file as the `file` field of a form. */
export const uploadDocument = (
  server: TestServer,
  token: string,
  content: Buffer,
  fileName: string,
  query: Record<string, string> = {},
) =>
  request(server)
    .post('/api/v1/knowledge-base/documents')
    .query(query)
    .auth(token, { type: 'bearer' })
    .attach('file', content, fileName);

export interface DocumentBody {
  document_uuid: string;
  status: string;
  failure_reason: string | null;
  [key: string]: unknown;
}

/** Waits until the document is `completed` or `failed`, and answers it. */
export async function documentSettled(server: TestServer, token: string, uuid: string): Promise<DocumentBody> {
  return waitFor(
    `document ${uuid} to finish processing`,
    async () => {
      const res = await request(server).get(`/api/v1/knowledge-base/documents/${uuid}`).auth(token, { type: 'bearer' });
      const body = res.body as DocumentBody;
      return body.status === 'completed' || body.status === 'failed' ? body : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 200 },
  );
}
