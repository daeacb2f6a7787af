/** An error whose message is safe to show to the caller, answered with `status`. */
export class ApiError extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown>;

  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message = 'Not Found') => new ApiError(404, message);
export const forbidden = (message: string) => new ApiError(403, message);
