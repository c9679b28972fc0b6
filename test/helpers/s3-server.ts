import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import parseRange from 'range-parser';

/** One object as S3 keeps it. */
export interface StoredObject {
  body: Buffer;
  contentType: string;
  /** `x-amz-server-side-encryption` of the PutObject (`AES256`, `aws:kms`), if any. */
  serverSideEncryption?: string;
  /** `x-amz-server-side-encryption-aws-kms-key-id` of an `aws:kms` PutObject. */
  kmsKeyId?: string;
  etag: string;
  lastModified: Date;
}

/** A request the server answered, for tests to assert on. */
export interface S3Request {
  method: string;
  bucket: string;
  key: string;
  status: number;
  headers: IncomingMessage['headers'];
}

/** An S3 error to answer the next requests of one method with (`failNext`). */
export interface InjectedFailure {
  status: number;
  code: string;
}

export interface LocalS3 {
  /** `http://127.0.0.1:<port>`, for S3_ENDPOINT. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Objects by bucket, then key. */
  readonly buckets: Map<string, Map<string, StoredObject>>;
  readonly requests: S3Request[];
  /** Answers the next `count` requests of `method` with this error instead of serving them. */
  failNext(method: string, count: number, failure?: InjectedFailure): void;
  close(): Promise<void>;
}

const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

class S3Failure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const xmlEscape = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * The encryption a PutObject asks for, refused as S3 refuses it: an unknown algorithm, or a KMS key
 * without `aws:kms` (400 InvalidArgument).
 */
function serverSideEncryption(request: IncomingMessage): Pick<StoredObject, 'serverSideEncryption' | 'kmsKeyId'> {
  const algorithm = request.headers['x-amz-server-side-encryption'];
  const kmsKeyId = request.headers['x-amz-server-side-encryption-aws-kms-key-id'];
  if (algorithm !== undefined && algorithm !== 'AES256' && algorithm !== 'aws:kms')
    throw new S3Failure(400, 'InvalidArgument', 'The encryption method specified is not supported');
  if (kmsKeyId !== undefined && algorithm !== 'aws:kms')
    throw new S3Failure(400, 'InvalidArgument', 'A KMS key id is only allowed with aws:kms');
  return {
    ...(algorithm ? { serverSideEncryption: algorithm } : {}),
    ...(typeof kmsKeyId === 'string' ? { kmsKeyId } : {}),
  };
}

/** How S3 confirms an object's encryption in PutObject, HeadObject and GetObject answers. */
function encryptionHeaders({
  serverSideEncryption: algorithm,
  kmsKeyId,
}: Partial<StoredObject>): Record<string, string> {
  return {
    ...(algorithm ? { 'x-amz-server-side-encryption': algorithm } : {}),
    ...(kmsKeyId ? { 'x-amz-server-side-encryption-aws-kms-key-id': kmsKeyId } : {}),
  };
}

/** `20240102T030405Z` → Date. */
function amzDate(text: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return null;
  const [year = 0, month = 1, day, hours, minutes, seconds] = match.slice(1).map(Number);
  return new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds));
}

/**
 * A local S3 over HTTP, speaking the REST API the recording store uses: PutObject (with its
 * server-side encryption headers, echoed back as S3 does), DeleteObject, HeadObject and GetObject (with `Range`) on path-style or virtual-hosted URLs, errors as S3's XML bodies
 * (`NoSuchKey`, `NoSuchBucket`, `InvalidRange`, `BadDigest`, `SignatureDoesNotMatch`…). Every request
 * must carry a SigV4 `Authorization` header: the server signs the same canonical request with its own
 * secret (@smithy/signature-v4, the signer the SDK uses) and compares, checks the credential scope and
 * the clock skew, and checks a hex `x-amz-content-sha256` and `Content-MD5` against the body.
 * `aws-chunked` bodies (the SDK's default trailing checksums) are refused with 501, as S3-compatible
 * servers that lack them do.
 */
export async function startLocalS3(options: {
  buckets: string[];
  region?: string;
  /** A server that takes the encryption headers without encrypting (and so without confirming it). */
  ignoresEncryption?: boolean;
}): Promise<LocalS3> {
  const region = options.region ?? 'us-east-1';
  const accessKeyId = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(20).toString('base64');
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region,
    service: 's3',
    sha256: Hash.bind(null, 'sha256'),
    // S3 signs the path as sent, without escaping it again.
    uriEscapePath: false,
    applyChecksum: false,
  });
  const buckets = new Map(options.buckets.map((name) => [name, new Map<string, StoredObject>()]));
  const requests: S3Request[] = [];
  const failures = new Map<string, { count: number; failure: InjectedFailure }>();

  async function verifySignature(request: IncomingMessage, url: URL): Promise<void> {
    const authorization = request.headers.authorization ?? '';
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    if (!match) throw new S3Failure(403, 'AccessDenied', 'Missing or malformed SigV4 Authorization header');
    const [, keyId, scopeDate, scopeRegion, signedHeaders, signature] = match as unknown as string[];
    if (keyId !== accessKeyId) throw new S3Failure(403, 'InvalidAccessKeyId', 'The AWS Access Key Id does not exist');
    if (scopeRegion !== region)
      throw new S3Failure(
        400,
        'AuthorizationHeaderMalformed',
        `the region '${scopeRegion}' is wrong; expecting '${region}'`,
      );
    const dateHeader = String(request.headers['x-amz-date'] ?? '');
    const signedAt = amzDate(dateHeader);
    if (!signedAt || !dateHeader.startsWith(scopeDate as string))
      throw new S3Failure(403, 'AccessDenied', 'x-amz-date is missing or does not match the credential scope');
    if (Math.abs(Date.now() - signedAt.getTime()) > MAX_CLOCK_SKEW_MS)
      throw new S3Failure(
        403,
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large',
      );
    const names = (signedHeaders as string).split(';');
    if (!names.includes('host') || !names.includes('x-amz-content-sha256') || !names.includes('x-amz-date'))
      throw new S3Failure(403, 'AccessDenied', 'host, x-amz-content-sha256 and x-amz-date must be signed');
    const headers: Record<string, string> = {};
    for (const name of names) {
      const value = request.headers[name];
      if (value === undefined) throw new S3Failure(403, 'AccessDenied', `signed header ${name} is missing`);
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const query: Record<string, string> = {};
    for (const [name, value] of url.searchParams) query[name] = value;
    const expected = await signer.sign(
      {
        method: request.method ?? 'GET',
        protocol: 'http:',
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        query,
        headers,
      },
      { signingDate: signedAt },
    );
    const expectedSignature = /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization))?.[1];
    if (expectedSignature !== signature)
      throw new S3Failure(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided',
      );
  }

  /** Bucket and key from a path-style (`/bucket/key`) or virtual-hosted (`bucket.host/key`) URL. */
  function locate(request: IncomingMessage, url: URL): { bucket: string; key: string } {
    const host = (request.headers.host ?? '').split(':')[0] ?? '';
    const path = url.pathname.slice(1);
    const virtualBucket = [...buckets.keys()].find((name) => host.startsWith(`${name}.`));
    if (virtualBucket) return { bucket: virtualBucket, key: decodeURIComponent(path) };
    const slash = path.indexOf('/');
    if (slash < 0) return { bucket: decodeURIComponent(path), key: '' };
    return { bucket: decodeURIComponent(path.slice(0, slash)), key: decodeURIComponent(path.slice(slash + 1)) };
  }

  async function serve(request: IncomingMessage, response: ServerResponse, url: URL, bucket: string, key: string) {
    const method = request.method ?? 'GET';
    const objects = buckets.get(bucket);
    if (!objects) throw new S3Failure(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (!key) throw new S3Failure(405, 'MethodNotAllowed', 'Only object operations are served');
    const injected = failures.get(method);
    if (injected && injected.count > 0) {
      injected.count -= 1;
      await readBody(request);
      throw new S3Failure(injected.failure.status, injected.failure.code, 'Injected failure');
    }
    if (method === 'PUT') {
      if (url.searchParams.size > 0 && [...url.searchParams.keys()].some((name) => name !== 'x-id'))
        throw new S3Failure(501, 'NotImplemented', 'Only PutObject is served');
      const contentSha256 = String(request.headers['x-amz-content-sha256']);
      if (request.headers['content-encoding']?.includes('aws-chunked') || contentSha256.startsWith('STREAMING-'))
        throw new S3Failure(501, 'NotImplemented', 'aws-chunked payloads are not supported');
      const body = await readBody(request);
      const declared = Number(request.headers['content-length']);
      if (!Number.isInteger(declared) || declared !== body.length)
        throw new S3Failure(
          400,
          'IncompleteBody',
          'You did not provide the number of bytes specified by the Content-Length',
        );
      if (/^[0-9a-f]{64}$/.test(contentSha256) && createHash('sha256').update(body).digest('hex') !== contentSha256)
        throw new S3Failure(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 does not match');
      const md5 = createHash('md5').update(body).digest();
      const contentMd5 = request.headers['content-md5'];
      if (contentMd5 !== undefined && contentMd5 !== md5.toString('base64'))
        throw new S3Failure(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received');
      const etag = `"${md5.toString('hex')}"`;
      const encryption = options.ignoresEncryption ? {} : serverSideEncryption(request);
      objects.set(key, {
        body,
        contentType: request.headers['content-type'] ?? 'binary/octet-stream',
        etag,
        lastModified: new Date(),
        ...encryption,
      });
      response.writeHead(200, { ETag: etag, ...encryptionHeaders(encryption) }).end();
      return 200;
    }
    if (method === 'DELETE') {
      objects.delete(key);
      response.writeHead(204).end();
      return 204;
    }
    if (method !== 'GET' && method !== 'HEAD') throw new S3Failure(405, 'MethodNotAllowed', `${method} is not served`);
    const object = objects.get(key);
    if (!object) throw new S3Failure(404, 'NoSuchKey', 'The specified key does not exist.');
    const size = object.body.length;
    const headers: Record<string, string | number> = {
      'Content-Type': object.contentType,
      ETag: object.etag,
      'Last-Modified': object.lastModified.toUTCString(),
      'Accept-Ranges': 'bytes',
      ...encryptionHeaders(object),
    };
    const rangeHeader = method === 'GET' ? request.headers.range : undefined;
    const ranges = rangeHeader ? parseRange(size, rangeHeader) : -2;
    if (ranges === -1) throw new S3Failure(416, 'InvalidRange', 'The requested range is not satisfiable');
    // S3 serves one range; it ignores malformed and multiple ranges and answers the whole object.
    if (Array.isArray(ranges) && ranges.length === 1) {
      const { start, end } = ranges[0] as parseRange.Range;
      response.writeHead(206, {
        ...headers,
        'Content-Length': end - start + 1,
        'Content-Range': `bytes ${start}-${end}/${size}`,
      });
      response.end(object.body.subarray(start, end + 1));
      return 206;
    }
    response.writeHead(200, { ...headers, 'Content-Length': size });
    response.end(method === 'HEAD' ? undefined : object.body);
    return 200;
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    const { bucket, key } = locate(request, url);
    let status: number;
    try {
      await verifySignature(request, url);
      status = await serve(request, response, url, bucket, key);
    } catch (error) {
      const failure = error instanceof S3Failure ? error : new S3Failure(500, 'InternalError', String(error));
      status = failure.status;
      const requestId = randomBytes(8).toString('hex').toUpperCase();
      const body =
        request.method === 'HEAD'
          ? ''
          : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${failure.code}</Code><Message>${xmlEscape(failure.message)}</Message>` +
            `<Key>${xmlEscape(key)}</Key><RequestId>${requestId}</RequestId></Error>`;
      if (!request.complete) request.resume();
      response
        .writeHead(failure.status, {
          'Content-Type': 'application/xml',
          'Content-Length': Buffer.byteLength(body),
          'x-amz-request-id': requestId,
        })
        .end(body);
    }
    requests.push({ method: request.method ?? 'GET', bucket, key, status, headers: request.headers });
  };

  const server: Server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId,
    secretAccessKey,
    region,
    buckets,
    requests,
    failNext(method, count, failure = { status: 500, code: 'InternalError' }) {
      failures.set(method, { count, failure });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
