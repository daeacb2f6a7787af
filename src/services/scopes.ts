export const SCOPES = [
  'reports:read',
  'summaries:read',
  'projects:read',
  'projects:write',
  'search:read',
  'user:read',
  // The routes that record work (docs/api.md, "Recording work"), and no other scope grants them.
  'activity:write',
  // Summary delivery (docs/delivery.md): /destinations and their deliveries.
  'destinations:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Scopes that also grant a route's primary scope (public docs of the hosted service). */
const IMPLIED_BY: Partial<Record<Scope, Scope[]>> = {
  'projects:read': ['projects:write'],
  'summaries:read': ['reports:read'],
};

/**
 * Former names, still accepted wherever a scope is (public docs of the hosted service, older):
 * a key created or imported with one holds the scope it became.
 */
const FORMER_NAMES = new Map<string, Scope>([['messages:read', 'summaries:read']]);

function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scope a name stands for, a former name included; undefined for any other name. */
export function scopeNamed(name: string): Scope | undefined {
  return isScope(name) ? name : FORMER_NAMES.get(name);
}

/** A key's scopes as they are stored: former names replaced by current ones, each scope once. */
export function currentScopes(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => scopeNamed(name) ?? name))];
}

export function grants(held: readonly string[], required: Scope): boolean {
  const granting = IMPLIED_BY[required] ?? [];
  return held.some((name) => {
    const scope = scopeNamed(name);
    return scope === required || (scope !== undefined && granting.includes(scope));
  });
}
