import type { AddressPolicy } from '../../platform/address-guard';
import { guardedRequest, OutboundRefusedError } from '../../platform/outbound-http';

/** An organization's OpenAI-compatible embeddings endpoint. */
export interface EmbeddingSettings {
  /** Up to the version path: `https://api.openai.com/v1`; requests go to `<base_url>/embeddings`. */
  baseUrl: string;
  model: string;
  /** The credential whose headers authenticate the requests; null: none sent (a local server). */
  credentialUuid: string | null;
  /** Texts per request. */
  batchSize: number;
}

/** What reaching an organization's endpoint needs: the outbound address guard and its credentials' headers. */
export interface EmbeddingsOutbound {
  policy: AddressPolicy;
  credentialHeaders(organizationId: number, credentialUuid: string): Promise<Record<string, string>>;
}

/** The endpoint refused the request (a 4xx other than 429, an address refused): trying again will not help. */
export class EmbeddingsRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddingsRefusedError';
  }
}

const TIMEOUT_MS = 30_000;
const DEADLINE_MS = 120_000;
/** Room for a batch of 2048 vectors of 3072 dimensions written as JSON. */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

interface EmbeddingsAnswer {
  data?: { index?: number; embedding?: unknown }[];
}

/** A vector scaled to length 1, so a dot product is the cosine similarity. */
export function normalized(values: readonly number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let index = 0; index < vector.length; index += 1) vector[index] = (vector[index] as number) / norm;
  return vector;
}

/**
 * Embeds `texts` in one request (`POST <base_url>/embeddings`, OpenAI's wire format), answering
 * their vectors normalized, in order. 4xx answers other than 429 throw EmbeddingsRefusedError; other
 * failures throw plain errors, to be retried.
 */
export async function embedTexts(
  outbound: EmbeddingsOutbound,
  organizationId: number,
  settings: EmbeddingSettings,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const headers = {
    'Content-Type': 'application/json',
    ...(settings.credentialUuid ? await outbound.credentialHeaders(organizationId, settings.credentialUuid) : {}),
  };
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/embeddings`;
  let answer;
  try {
    answer = await guardedRequest(
      {
        method: 'POST',
        url,
        headers,
        body: JSON.stringify({ model: settings.model, input: texts, encoding_format: 'float' }),
      },
      outbound.policy,
      { timeoutMs: TIMEOUT_MS, deadlineMs: DEADLINE_MS, maxAnswerBytes: MAX_ANSWER_BYTES, signal },
    );
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw new EmbeddingsRefusedError(error.message);
    throw error;
  }
  const excerpt = answer.body.subarray(0, 300).toString('utf8');
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 408 && answer.status !== 429) {
    throw new EmbeddingsRefusedError(`The embeddings endpoint answered ${answer.status}: ${excerpt}`);
  }
  if (answer.status !== 200) throw new Error(`The embeddings endpoint answered ${answer.status}: ${excerpt}`);
  if (answer.truncated) throw new EmbeddingsRefusedError('The embeddings answer is larger than the service reads');
  let parsed: EmbeddingsAnswer;
  try {
    parsed = JSON.parse(answer.body.toString('utf8')) as EmbeddingsAnswer;
  } catch {
    throw new Error(`The embeddings endpoint answered something other than JSON: ${excerpt}`);
  }
  const vectors: Float32Array[] = [];
  for (const [position, item] of (parsed.data ?? []).entries()) {
    const values = item.embedding;
    if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === 'number')) {
      throw new EmbeddingsRefusedError('The embeddings answer holds something other than vectors of numbers');
    }
    vectors[item.index ?? position] = normalized(values);
  }
  const dimensions = vectors[0]?.length;
  if (vectors.length !== texts.length || texts.some((_text, index) => vectors[index]?.length !== dimensions)) {
    throw new EmbeddingsRefusedError(
      `The embeddings endpoint answered ${vectors.length} vectors of unequal or missing dimensions for ${texts.length} texts`,
    );
  }
  return vectors;
}
