/** The errors a route may throw; the error middleware turns each into `{detail}` with its status. */
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

export class BadRequestError extends AppError {
  constructor(detail: string) {
    super(400, detail);
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

export class NotFoundError extends AppError {
  constructor(detail = 'Not Found') {
    super(404, detail);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(detail: string) {
    super(415, detail);
  }
}

export class ConflictError extends AppError {
  constructor(detail: string) {
    super(409, detail);
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

/** An upstream service (a telephony provider, the language model) failed or answered nonsense. */
export class BadGatewayError extends AppError {
  constructor(detail: string) {
    super(502, detail);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string) {
    super(503, detail);
  }
}

/** One FastAPI-shaped validation problem. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** 422 whose `detail` is a list of `{loc, msg, type}`, as FastAPI answers. */
export class ValidationError extends Error {
  readonly status = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
    this.name = 'ValidationError';
  }
}
