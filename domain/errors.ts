/**
 * What the domain refuses, in its own terms. Each error carries the sentence a client is shown;
 * the entry point (the API's error middleware) decides how to answer it.
 */
export abstract class DomainError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }
}

/** The request breaks a rule of the domain. */
export class InvalidError extends DomainError {}

/** The thing asked for does not exist, or belongs to another organization. */
export class NotFoundError extends DomainError {
  constructor(detail = 'Not Found') {
    super(detail);
  }
}

/** The request contradicts the current state: a duplicate, or a transition the state does not allow. */
export class ConflictError extends DomainError {}

/** The request is well-formed but a rule forbids what it asks (a call to a number on the do-not-call list). */
export class RefusedError extends DomainError {}

/** A limit refuses the request for now; it is allowed again after `retryAfterSeconds`. */
export class TooSoonError extends DomainError {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
  }
}

/** A service the domain depends on (a telephony provider, the language model) failed or answered nonsense. */
export class UpstreamError extends DomainError {}

/** One problem with one input field, located by its path, named as FastAPI (pydantic) names it. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Input fields that break their rules, all of them at once. */
export class ValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
    this.name = 'ValidationError';
  }
}
