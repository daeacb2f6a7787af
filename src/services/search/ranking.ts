/**
 * Decides which candidates really match and in what order (docs/api.md, "POST /search"). The index has
 * already kept records containing every word as a prefix somewhere; here phrases must stand as
 * consecutive words, and the order is: title/headline matches first, then a BM25-like score,
 * then newest first.
 */
import { type Word, wordsOf } from '../../lib/search-text.ts';
import type { SearchDocument } from '../../storage/search.ts';
import type { SearchTerm } from './query.ts';

/** BM25 term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** BM25F field weights: a word in the title counts twice. */
const FIELD_WEIGHTS = [2, 1];
/** Two query words standing next to each other, in order, as typed. */
const ADJACENT_PAIR_BONUS = 0.75;
/** Context words only add to the score, and less than query words do. */
const CONTEXT_WEIGHT = 0.5;

export interface FieldMatch {
  /** `title`/`headline` or `description`. */
  name: string;
  /** The field with runs of whitespace collapsed to single spaces. */
  text: string;
  words: Word[];
  /** Per query term, where it occurs: [first word, last word] index pairs. */
  occurrences: [number, number][][];
}

export interface RankedDocument {
  document: SearchDocument;
  /** Title field first, then description. */
  fields: FieldMatch[];
  matchedFields: string[];
  titleMatched: boolean;
  score: number;
}

/** Where `term` occurs in `words`: each start index whose following words begin with its words. */
function occurrencesOf(term: SearchTerm, words: Word[]): [number, number][] {
  const found: [number, number][] = [];
  const n = term.words.length;
  for (let i = 0; i + n <= words.length; i++) {
    let all = true;
    for (let j = 0; j < n && all; j++) all = words[i + j]!.folded.startsWith(term.words[j]!);
    if (all) found.push([i, i + n - 1]);
  }
  return found;
}

function analyse(document: SearchDocument, terms: SearchTerm[]): FieldMatch[] {
  const names = document.source === 'tasks' ? ['title', 'description'] : ['headline', 'description'];
  return [document.title, document.description ?? ''].map((raw, f) => {
    const text = raw.replace(/\s+/g, ' ').trim();
    const words = wordsOf(text);
    return { name: names[f]!, text, words, occurrences: terms.map((term) => occurrencesOf(term, words)) };
  });
}

function saturate(weightedFrequency: number): number {
  return (weightedFrequency * (K1 + 1)) / (weightedFrequency + K1);
}

/** Sums a term's frequency over fields, each weighted and normalised by the field's length. */
function weightedFrequency(counts: number[], fields: FieldMatch[], averageLengths: number[]): number {
  let total = 0;
  fields.forEach((field, f) => {
    if (counts[f] === 0) return;
    const norm = 1 - B + B * (field.words.length / (averageLengths[f] || 1));
    total += (FIELD_WEIGHTS[f]! * counts[f]!) / norm;
  });
  return total;
}

function adjacentPairs(terms: SearchTerm[], fields: FieldMatch[]): number {
  let pairs = 0;
  for (let t = 0; t + 1 < terms.length; t++) {
    const adjacent = fields.some((field) =>
      field.occurrences[t]!.some(([, last]) => field.occurrences[t + 1]!.some(([first]) => first === last + 1)),
    );
    if (adjacent) pairs++;
  }
  return pairs;
}

/**
 * The candidates that match every term, best first. Scores are computed from the candidates
 * alone (their average field lengths), so both databases rank the same records the same way.
 */
export function rankDocuments(
  candidates: SearchDocument[],
  terms: SearchTerm[],
  context: SearchTerm[],
): RankedDocument[] {
  if (terms.length === 0) return [];
  const matching: { document: SearchDocument; fields: FieldMatch[] }[] = [];
  for (const document of candidates) {
    const fields = analyse(document, terms);
    if (terms.every((_, t) => fields.some((field) => field.occurrences[t]!.length > 0)))
      matching.push({ document, fields });
  }
  const averageLengths = [0, 1].map(
    (f) => matching.reduce((sum, m) => sum + m.fields[f]!.words.length, 0) / (matching.length || 1),
  );

  const ranked = matching.map(({ document, fields }): RankedDocument => {
    let score = 0;
    terms.forEach((_, t) => {
      score += saturate(
        weightedFrequency(
          fields.map((field) => field.occurrences[t]!.length),
          fields,
          averageLengths,
        ),
      );
    });
    score += ADJACENT_PAIR_BONUS * adjacentPairs(terms, fields);
    for (const term of context) {
      const counts = fields.map((field) => occurrencesOf(term, field.words).length);
      score += CONTEXT_WEIGHT * saturate(weightedFrequency(counts, fields, averageLengths));
    }
    const matchedFields = fields
      .filter((field) => field.occurrences.some((o) => o.length > 0))
      .map((field) => field.name);
    return { document, fields, matchedFields, titleMatched: matchedFields.includes(fields[0]!.name), score };
  });

  return ranked.sort(
    (a, b) =>
      Number(b.titleMatched) - Number(a.titleMatched) ||
      b.score - a.score ||
      b.document.at - a.document.at ||
      a.document.source.localeCompare(b.document.source) ||
      (a.document.id < b.document.id ? -1 : a.document.id > b.document.id ? 1 : 0),
  );
}
