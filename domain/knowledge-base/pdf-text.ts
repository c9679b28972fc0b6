import { Worker } from 'node:worker_threads';

/**
 * PDF text extraction (pdf.js, through pdf-parse) on a thread of its own: pdf.js loads its parser
 * as an ES module, which a thread's plain Node loader allows wherever the caller runs, and the
 * thread's heap is capped, so a hostile or huge PDF fails its document instead of the worker.
 */
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PDFParse } = require(workerData.module);
(async () => {
  const parser = new PDFParse({ data: workerData.data });
  try {
    const result = await parser.getText({ lineEnforce: true });
    parentPort.postMessage({ pages: result.pages.map((page) => page.text) });
  } finally {
    await parser.destroy();
  }
})().catch((error) => parentPort.postMessage({ error: String((error && error.message) || error) }));
`;

/** Heap of the extraction thread; a 20 MB PDF of text needs well under this. */
const THREAD_HEAP_MB = 1024;

export class PdfTextError extends Error {}

/** The text of each page, in order. */
export async function pdfPageTexts(data: Uint8Array): Promise<string[]> {
  const copy = new Uint8Array(data);
  const worker = new Worker(THREAD_CODE, {
    eval: true,
    workerData: { module: require.resolve('pdf-parse'), data: copy },
    transferList: [copy.buffer],
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
  try {
    const message = await new Promise<{ pages?: string[]; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new PdfTextError(`the PDF reader stopped (exit code ${code})`)));
    });
    if (message.error !== undefined || !message.pages) throw new PdfTextError(message.error ?? 'no text');
    return message.pages;
  } finally {
    await worker.terminate();
  }
}
