/**
 * Errors only HTTP has (credentials, methods, ranges, throttling); the error middleware turns each
 * into `{detail}` with its status. What the domain refuses is a `DomainError`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

export class UnauthorizedError extends AppError {
  constructor(detail: string) {
    super(401, detail, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends AppError {
  constructor(detail: string) {
    super(403, detail);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(detail: string) {
    super(415, detail);
  }
}

/** 416 with the `Content-Range` RFC 9110 asks for (`bytes` star slash size), so clients learn the size. */
export class RangeNotSatisfiableError extends AppError {
  constructor(size: number) {
    super(416, 'Range not satisfiable', { 'Content-Range': `bytes */${size}` });
  }
}

/** 429 with `Retry-After` in whole seconds (at least 1), so clients know when to try again. */
export class TooManyRequestsError extends AppError {
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, detail, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string) {
    super(503, detail);
  }
}
