/**
 * What a word is for search, and when two spellings are the same word. The search index and
 * the ranking both follow these rules (the PostgreSQL index functions are generated from them,
 * SQLite's tokenizer is configured to the same Unicode categories), so the database and the
 * ranking agree on what matched.
 */

/**
 * Variation selectors pick how the character before them is drawn (the emoji form of ⚠ in ⚠️):
 * marks by category, but never part of a word, so "⚠️Hotfix" holds the word "Hotfix".
 */
export const VARIATION_SELECTOR_RANGES: [number, number][] = [
  [0xfe00, 0xfe0f],
  [0xe0100, 0xe01ef],
];
const VARIATION_SELECTORS = VARIATION_SELECTOR_RANGES.map(([a, b]) => `\\u{${hex(a)}}-\\u{${hex(b)}}`).join('');

/**
 * Word characters: everything but punctuation, symbols, spaces, controls and format characters
 * (Unicode general categories P, S, Z, Cc, Cf) and variation selectors. Letters, digits and
 * marks make words, so "rate-limiter" is two words and "café" one. Lone surrogates and
 * U+FFFE/U+FFFF separate words too: databases store the former as U+FFFD, and SQLite's
 * tokenizer splits at the latter.
 */
const SEPARATORS = `\\p{P}\\p{S}\\p{Z}\\p{Cc}\\p{Cf}\\p{Cs}\\uFFFE\\uFFFF${VARIATION_SELECTORS}`;
const WORD = new RegExp(`[^${SEPARATORS}]+`, 'gu');
const SEPARATOR = new RegExp(`[${SEPARATORS}]`, 'u');
/** Printable ASCII: the words that only need lowercasing. */
const PLAIN_ASCII = /^[!-~]*$/;

/** The combining marks that NFD splits off accented letters; removing them makes "café" "cafe". */
const DIACRITIC_RANGES: [number, number][] = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x20d0, 0x20ff],
  [0xfe20, 0xfe2f],
];
const DIACRITICS = new RegExp(`[${DIACRITIC_RANGES.map(([a, b]) => `\\u{${hex(a)}}-\\u{${hex(b)}}`).join('')}]`, 'gu');

/**
 * Longer words are indexed by their first characters only; a query word (at most 100
 * characters) still finds them as a prefix. Keeps PostgreSQL lexemes under their size limit.
 */
export const INDEXED_WORD_LENGTH = 400;

/** A word of a text: where it stands and its folded form. */
export interface Word {
  /** UTF-16 offsets in the text. */
  start: number;
  end: number;
  folded: string;
}

/** Case- and diacritic-insensitive form of a word. */
function foldWord(word: string): string {
  if (PLAIN_ASCII.test(word)) return word.toLowerCase();
  // Final sigma is a lowercase form of the same letter.
  return word.normalize('NFD').replace(DIACRITICS, '').normalize('NFC').toLowerCase().replace(/ς/g, 'σ');
}

/** The words of `text` in order; characters that fold to nothing make no word. */
export function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  for (const match of text.matchAll(WORD)) {
    const folded = foldWord(match[0]);
    if (folded !== '') words.push({ start: match.index, end: match.index + match[0].length, folded });
  }
  return words;
}

const SEPARATOR_RUNS = new RegExp(`${SEPARATOR.source}+`, 'u');

/**
 * The distinct words a stored text is indexed under on PostgreSQL, as its
 * `daybook_search_words` finds them (migration 0002): the text as the database keeps it (a lone
 * surrogate becomes U+FFFD), folded whole, split at runs of separators, each word cut to
 * INDEXED_WORD_LENGTH code points. Writers that compute them here spare the database that work.
 */
export function indexedWordsOf(text: string): string[] {
  const words = new Set<string>();
  for (const word of foldWord(text.toWellFormed()).split(SEPARATOR_RUNS)) {
    if (word === '') continue;
    words.add(word.length > INDEXED_WORD_LENGTH ? [...word].slice(0, INDEXED_WORD_LENGTH).join('') : word);
  }
  return [...words];
}

function hex(code: number): string {
  return code.toString(16).padStart(4, '0');
}

/** A code point as a PostgreSQL regular-expression escape. */
function pgEscape(code: number): string {
  return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${hex(code)}`;
}

/** A PostgreSQL bracket expression of the given code point ranges. */
function pgBracket(ranges: [number, number][]): string {
  return `[${ranges.map(([a, b]) => (a === b ? pgEscape(a) : `${pgEscape(a)}-${pgEscape(b)}`)).join('')}]`;
}

let allSeparatorRanges: [number, number][] | undefined;

/**
 * The separator characters as ranges of code points, leaving out those in `except`. NUL cannot
 * occur in stored text and surrogates only in pairs, so neither is listed.
 */
export function separatorRanges(except: [number, number][] = []): [number, number][] {
  // A walk over every code point: the plain list is made once per process (each new database's
  // migrations ask for it).
  if (except.length === 0 && allSeparatorRanges) return allSeparatorRanges;
  const ranges: [number, number][] = [];
  let from = -1;
  const excepted = (code: number) => except.some(([a, b]) => code >= a && code <= b);
  for (let code = 1; code <= 0x110000; code++) {
    const separator =
      code <= 0x10ffff &&
      (code < 0xd800 || code > 0xdfff) &&
      !excepted(code) &&
      SEPARATOR.test(String.fromCodePoint(code));
    if (separator && from < 0) from = code;
    if (!separator && from >= 0) {
      ranges.push([from, code - 1]);
      from = -1;
    }
  }
  if (except.length === 0) allSeparatorRanges = ranges;
  return ranges;
}

/** The separator characters (but those in `except`) as one PostgreSQL bracket expression. */
export function postgresSeparatorClass(except: [number, number][] = []): string {
  return pgBracket(separatorRanges(except));
}

/** The variation selectors as one PostgreSQL bracket expression. */
export function postgresVariationSelectorClass(): string {
  return pgBracket(VARIATION_SELECTOR_RANGES);
}

export function postgresDiacriticClass(): string {
  return pgBracket(DIACRITIC_RANGES);
}
