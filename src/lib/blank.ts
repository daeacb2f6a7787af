/**
 * Empty or whitespace only, by Unicode's White_Space property (which `String.prototype.trim`
 * follows except for U+0085 NEXT LINE) and the byte-order mark that trim also drops.
 */
const BLANK = /^[\p{White_Space}\uFEFF]*$/u;

export function isBlank(value: string | null | undefined): boolean {
  return value === null || value === undefined || BLANK.test(value);
}
