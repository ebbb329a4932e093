/**
 * The errors handlers throw to answer the way GitHub does. The server adds
 * `documentation_url` (the operation's documentation page) and `status` to the body, as
 * GitHub's error bodies carry them.
 */

export interface ErrorDetail {
  readonly resource?: string;
  readonly field?: string;
  readonly code:
    'missing' | 'missing_field' | 'invalid' | 'already_exists' | 'unprocessable' | 'custom';
  readonly message?: string;
  readonly value?: string | number | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: readonly ErrorDetail[],
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A request GitHub would serve but the double does not: a gap to fill, recorded as such. */
export class NotImplementedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotImplementedError';
  }
}

export const notFound = (message = 'Not Found'): ApiError => new ApiError(404, message);

/** 422 with GitHub's `Validation Failed` body and its `errors` list. */
export const validationFailed = (...errors: ErrorDetail[]): ApiError =>
  new ApiError(422, 'Validation Failed', errors);

/** 422 with a bare message (`Reference already exists`, `Invalid request. …`). */
export const unprocessable = (message: string): ApiError => new ApiError(422, message);
