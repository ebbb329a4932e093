/**
 * Typed, coded errors. Every failure a caller can act on is one of these; the gateway maps
 * `code` once to a tool error / HTTP problem, the CLI maps it to a message and exit code.
 */
export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'INVALID_ARGUMENT'
  | 'WRONG_EXPECTED_VERSION'
  | 'DUPLICATE_EVENT_ID'
  | 'NOT_FOUND'
  | 'UNAVAILABLE'
  | 'INTERNAL'
  // The command is well-formed but the current state refuses it (lifecycle rules, a pending
  // proposal, a closed request): change the state or the command, retrying as is won't help.
  | 'FAILED_PRECONDITION'
  // The actor may not do this (approving their own proposal, withdrawing someone else's request).
  | 'PERMISSION_DENIED'
  // Something this process needs for itself is held by another process: the HTTP port, or
  // the embedded data folder that another `serve` owns.
  | 'IN_USE';

export class CogitaveError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

export class InvalidArgument extends CogitaveError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('INVALID_ARGUMENT', message, details);
  }
}

export class NotFound extends CogitaveError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('NOT_FOUND', message, details);
  }
}

export class Unavailable extends CogitaveError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: ErrorOptions) {
    super('UNAVAILABLE', message, details, options);
  }
}

export const isCogitaveError = (value: unknown): value is CogitaveError =>
  value instanceof CogitaveError;
