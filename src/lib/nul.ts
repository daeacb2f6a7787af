/** U+0000 in text: PostgreSQL cannot store it, so no input may carry it (docs/api.md). */

/**
 * The path of the first string in `value` that holds U+0000 (`name`, `contributorIds[2]`,
 * `dateRange.from`; '' for `value` itself), or null. Walks without recursion: a body may nest
 * far deeper than the stack.
 */
export function fieldHoldingNul(value: unknown): string | null {
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return path;
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

/** What a field holding U+0000 is told. */
export const NUL_RULE = 'must not contain the NUL character (\\u0000)';
