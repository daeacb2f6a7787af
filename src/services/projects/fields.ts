/**
 * The request fields of a project write and the checks that need no database: lengths,
 * colors and the fields a route may not change. Both `/projects` and `/project` normalize their
 * bodies into `ProjectInput`; `undefined` always means "not sent".
 */
import { badRequest } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';

export interface ProjectInput {
  name?: string | null;
  description?: string | null;
  color?: unknown;
  /** Team id or exact name; null or "" means personal scope. */
  team?: string | null;
  /** Portfolio id or exact name; null or "" means none. */
  portfolio?: string | null;
  private?: boolean;
  /** Create only; on update any value is refused. */
  confidential?: unknown;
  contributorIds?: unknown;
  archived?: boolean;
}

export const PROJECT_COLORS = [
  '#FFB623', '#4BC0C0', '#6C63FF', '#FF4590', '#32D74B', '#FFD166', '#845EC2', '#00C2FF', '#FF6B6B', '#00B8A9',
  '#FF9F1C', '#F9F871', '#EF5DA8', '#4ECDC4', '#00BBF9', '#FF9671', '#FCBAD3', '#A6E3E9', '#FFCB77', '#D65DB1',
] as const;

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 2000;
/** The deprecated `/project` endpoint caps color strings before checking them against the set. */
export const LEGACY_COLOR_MAX = 100;

/** Length in characters (code points), as the limits of the spec count them. */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

function checkMaxLength(field: string, value: string, max: number): void {
  if (charLength(value) > max) throw badRequest(`${field} must be at most ${max} characters`);
}

/** A color as stored: one of the 20 allowed values exactly as written, or null to clear. */
export function parseColor(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value === 'string' && (PROJECT_COLORS as readonly string[]).includes(value)) return value;
  throw badRequest('Invalid color value');
}

/** Checks of a create or update body that come before any lookup (decisions §1.1: 400 before 404). */
export function checkProjectInput(input: ProjectInput, operation: 'create' | 'update'): void {
  if (typeof input.name === 'string') checkMaxLength('name', input.name, NAME_MAX);
  if (operation === 'update' && input.name !== undefined && isBlank(input.name)) {
    throw badRequest('name must not be empty');
  }
  if (typeof input.description === 'string') checkMaxLength('description', input.description, DESCRIPTION_MAX);
  if (input.color !== undefined) parseColor(input.color);
  if (operation === 'update' && input.confidential !== undefined) {
    throw badRequest('confidential cannot be changed through the API');
  }
}

/** The deprecated endpoint's extra limit: a color string over 100 characters names the field. */
export function checkLegacyColorLength(value: unknown): void {
  if (typeof value === 'string') checkMaxLength('color', value, LEGACY_COLOR_MAX);
}
