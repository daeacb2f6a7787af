/**
 * The `cursor` of `GET /projects`: where the previous page ended, with the list it belongs to.
 *
 * A cursor is `<payload>.<check>`, both base64url: the payload is the JSON array
 * `[sort, includeArchived, isNull, value, id]` (the last project's sort value, null flag first
 * as the order puts nulls last, and its id), the check the first 9 bytes of its SHA-256. The
 * check tells a cursor that was cut or edited from one the server gave; it is no secret (the
 * cursor only says where to resume within the caller's own visible projects, so an edited one
 * could reveal nothing), and it keeps cursors valid across restarts and server processes.
 */
import { createHash } from 'node:crypto';
import { badRequest } from '../../errors.ts';
import type { ProjectPosition, ProjectSortKey } from '../../storage/projects.ts';

/** Page size of `GET /projects` when a `cursor` comes without a `limit`. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export const CURSOR_INVALID = 'cursor must be the nextCursor of a previous answer of GET /projects';
export const CURSOR_MAX_LENGTH = 1000;

export interface ListPosition extends ProjectPosition {
  sort: ProjectSortKey;
  includeArchived: boolean;
}

const SORTS: readonly string[] = ['createdAt', 'updatedAt', 'usedAt'];

function checkOf(payload: string): string {
  return createHash('sha256')
    .update(`daybook projects cursor\n${payload}`)
    .digest()
    .subarray(0, 9)
    .toString('base64url');
}

export function encodeCursor(position: ListPosition): string {
  const { sort, includeArchived, isNull, value, id } = position;
  const payload = Buffer.from(JSON.stringify([sort, includeArchived, isNull, value, id])).toString('base64url');
  return `${payload}.${checkOf(payload)}`;
}

/** The position a cursor names; 400 naming `cursor` when it is not one the server gave. */
export function decodeCursor(cursor: string): ListPosition {
  const [payload, check, ...rest] = cursor.split('.');
  if (!payload || check !== checkOf(payload) || rest.length > 0) throw badRequest(CURSOR_INVALID);
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw badRequest(CURSOR_INVALID);
  }
  if (!Array.isArray(fields) || fields.length !== 5) throw badRequest(CURSOR_INVALID);
  const [sort, includeArchived, isNull, value, id] = fields as unknown[];
  const valid =
    typeof sort === 'string' &&
    SORTS.includes(sort) &&
    typeof includeArchived === 'boolean' &&
    typeof isNull === 'boolean' &&
    (isNull ? value === null : Number.isSafeInteger(value)) &&
    typeof id === 'string' &&
    // The check is no secret: a cursor made elsewhere must still be one the database can take.
    !id.includes('\u0000');
  if (!valid) throw badRequest(CURSOR_INVALID);
  return { sort: sort as ProjectSortKey, includeArchived, isNull, value: value as number | null, id };
}

/** 400 when the cursor was given for another list than the one asked for. */
export function checkCursorFits(position: ListPosition, sort: ProjectSortKey, includeArchived: boolean): void {
  if (position.sort !== sort || position.includeArchived !== includeArchived)
    throw badRequest(
      `cursor must come with the sort and includeArchived of the answer that gave it (sort=${position.sort}, includeArchived=${position.includeArchived})`,
    );
}
