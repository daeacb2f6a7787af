export const SCOPES = [
  'reports:read',
  'summaries:read',
  'projects:read',
  'projects:write',
  'search:read',
  'user:read',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Scopes that also grant a route's primary scope (public docs of the hosted service). */
const IMPLIED_BY: Partial<Record<Scope, Scope[]>> = {
  'projects:read': ['projects:write'],
  'summaries:read': ['reports:read'],
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function grants(held: readonly string[], required: Scope): boolean {
  return held.includes(required) || (IMPLIED_BY[required] ?? []).some((s) => held.includes(s));
}
