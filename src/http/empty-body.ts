import type { preValidationAsyncHookHandler } from 'fastify';

/**
 * For routes whose body fields are all optional: a request without a body is validated and
 * handled as the empty object `{}`.
 */
export const emptyBodyAsObject: preValidationAsyncHookHandler = async (request) => {
  if (request.body === undefined || request.body === null) request.body = {};
};
