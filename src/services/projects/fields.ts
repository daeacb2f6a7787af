/**
 * The request fields of a project write and the one rule of an update the route schemas
 * (schemas/projects.ts) leave here. Both `/projects` and `/project` hand their bodies on as a
 * `ProjectInput`; `undefined` always means "not sent".
 */
import { badRequest } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import type { LegacyProjectBody, ProjectUpdateBody } from '../../schemas/projects.ts';

/**
 * The fields of a `/projects` update, with `name`, `color` and `confidential` as `/project` may
 * send them: a null name, any color string its schema let through (`""` already read as null),
 * and a confidential flag, allowed on create only.
 */
export type ProjectInput = Omit<ProjectUpdateBody, 'name' | 'color' | 'confidential'> &
  Pick<LegacyProjectBody, 'name' | 'color' | 'confidential'>;

export const PROJECT_COLORS = [
  '#FFB623',
  '#4BC0C0',
  '#6C63FF',
  '#FF4590',
  '#32D74B',
  '#FFD166',
  '#845EC2',
  '#00C2FF',
  '#FF6B6B',
  '#00B8A9',
  '#FF9F1C',
  '#F9F871',
  '#EF5DA8',
  '#4ECDC4',
  '#00BBF9',
  '#FF9671',
  '#FCBAD3',
  '#A6E3E9',
  '#FFCB77',
  '#D65DB1',
] as const;

export const NAME_MAX = 100;
export const DESCRIPTION_MAX = 2000;
/** The deprecated `/project` endpoint caps color strings before checking them against the set. */
export const LEGACY_COLOR_MAX = 100;

/**
 * An update's rules that come before any lookup (docs/api.md: a 400 comes before a 404) and that the
 * schemas cannot state: a name of white space, and `confidential`, which `/project` accepts on
 * create and so lets through on update too.
 */
export function checkUpdateInput(input: ProjectInput): void {
  if (input.name !== undefined && isBlank(input.name)) throw badRequest('name must not be empty');
  if (input.confidential !== undefined) throw badRequest('confidential cannot be changed through the API');
}
