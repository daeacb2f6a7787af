/**
 * Text no input may carry, on either database:
 * - U+0000: PostgreSQL cannot store it (docs/api.md);
 * - a lone UTF-16 surrogate (`"a\ud800b"` in JSON): UTF-8 has no form for it, so it would be
 *   stored as U+FFFD, changed from what was sent, where raw bytes that are not UTF-8 are refused.
 */

/** What a field holding U+0000 is told. */
export const NUL_RULE = 'must not contain the NUL character (\\u0000)';
/** What a field holding a lone surrogate is told. */
const LONE_SURROGATE_RULE = 'must not contain a lone surrogate';

/** The rule a string breaks, or null. */
function brokenRule(text: string): string | null {
  if (text.includes('\u0000')) return NUL_RULE;
  return text.isWellFormed() ? null : LONE_SURROGATE_RULE;
}

/**
 * The first string in `value` that breaks a rule above: its path (`name`, `contributorIds[2]`,
 * `activities[3].headline`; '' for `value` itself) and the rule, or null. Walks without
 * recursion: a body may nest far deeper than the stack.
 */
export function unstorableText(value: unknown): { field: string; rule: string } | null {
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'string') {
      const rule = brokenRule(item);
      if (rule !== null) return { field: path, rule };
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i], `${path}[${i}]`]);
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        pending.push([child, path ? `${path}.${key}` : key]);
      }
    }
  }
  return null;
}

/**
 * Whether JSON text may hold such a string: U+0000 and lone surrogates can only be written as
 * escapes (`\u0000`, `\ud800`), so text without `\u0000` or a `\uD800`–`\uDFFF` escape needs no walk.
 */
export function mayHoldUnstorableText(json: string): boolean {
  return json.includes('\\u0000') || /\\u[dD][89abAB]|\\u[dD][c-fC-F]/.test(json);
}
