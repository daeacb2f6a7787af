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

/** Longest piece of a caller's value an error message repeats. */
const SHOWN_LENGTH = 100;

/**
 * A caller's value as an error message names it: a string as it is, cut to 100 characters
 * (a 1 MiB string is not sent back); anything else by its kind, never rendered in depth (a
 * value nested 10,000 levels would overflow the stack of JSON.stringify).
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') {
    const characters = [...value.slice(0, 2 * SHOWN_LENGTH)];
    return characters.length > SHOWN_LENGTH ? `${characters.slice(0, SHOWN_LENGTH).join('')}…` : value;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value;
}
