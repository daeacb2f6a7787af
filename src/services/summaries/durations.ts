/** Durations as people read them: `7 h 35 min`, `45 min`, `2 h` (docs/api.md, "GET / POST /message"). */

export function formatDuration(minutes: number): string {
  const total = Math.round(Math.abs(minutes));
  const hours = Math.floor(total / 60);
  const rest = total % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** A signed difference: `+1 h 5 min`, `-45 min`, `no change`. */
export function formatChange(minutes: number): string {
  // Halves away from zero, as formatDuration rounds: -0.5 is -1 min like +0.5 is +1 min.
  const rounded = Math.sign(minutes) * Math.round(Math.abs(minutes));
  if (rounded === 0) return 'no change';
  return `${rounded > 0 ? '+' : '-'}${formatDuration(rounded)}`;
}
