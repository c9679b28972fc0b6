import { createHmac } from 'node:crypto';
import { signaturesMatch, sortedParams } from '../../webhook-signatures';

/**
 * Plivo's V3 signature: base64 HMAC-SHA256 under the auth token of the URL without its query,
 * then (GET) `?` and every query parameter sorted as `k=v&…`, or (POST) `?`, the URL's own sorted
 * query, `.` and the sorted POST parameters as `k1v1k2v2…`; then `.` and the nonce.
 */
export function plivoV3Signature(
  authToken: string,
  method: string,
  url: string,
  params: [string, string][],
  nonce: string,
): string {
  const [base = '', query = ''] = url.split('#')[0]?.split('?') ?? [];
  const queryParams = [...new URLSearchParams(query).entries()];
  const joined = (pairs: [string, string][]) =>
    sortedParams(pairs)
      .flatMap(([key, values]) => values.map((value) => `${key}=${value}`))
      .join('&');
  let signed: string;
  if (method.toUpperCase() === 'GET') {
    const all = joined([...queryParams, ...params]);
    signed = all ? `${base}?${all}` : base;
  } else {
    const q = joined(queryParams);
    const p = sortedParams(params)
      .flatMap(([key, values]) => values.map((value) => `${key}${value}`))
      .join('');
    signed = `${base}${q || p ? '?' : ''}${q}${q && p ? '.' : ''}${p}`;
  }
  return createHmac('sha256', authToken).update(`${signed}.${nonce}`, 'utf8').digest('base64');
}

/** True when any of the comma-separated signatures in `header` equals `expected`. */
export function anySignatureMatches(header: string, expected: string): boolean {
  return header.split(',').some((candidate) => signaturesMatch(expected, candidate.trim()));
}
