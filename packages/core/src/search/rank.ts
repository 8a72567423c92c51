import type { SearchIndex } from "./index-build";
import { MAX_QUERY_CHARS, SearchOptions, type SearchHit } from "./schema";
import { synonymsOf } from "./synonyms";
import { tokenize } from "./tokenize";

/** A synonym counts this much of the word the caller wrote. */
export const SYNONYM_WEIGHT = 0.4;
/** The most a tool gains when the query covers every term of its name. */
export const NAME_COVERAGE_BONUS = 1.5;

/** The stemmed query terms with their weights: the caller's own words at 1, their synonyms at SYNONYM_WEIGHT. */
export function queryTerms(query: string): Map<string, number> {
  const terms = new Map<string, number>();
  const own = tokenize(query.slice(0, MAX_QUERY_CHARS));
  for (const term of own) terms.set(term, 1);
  for (const term of own)
    for (const synonym of synonymsOf(term)) terms.set(synonym, Math.max(terms.get(synonym) ?? 0, SYNONYM_WEIGHT));
  return terms;
}

const ranksBefore = (index: SearchIndex, scores: Float64Array, a: number, b: number) =>
  scores[a]! > scores[b]! || (scores[a] === scores[b] && index.names[a]! < index.names[b]!);

/** The best `limit` candidates in order, kept by insertion: limit is small next to the candidates. */
function topDocs(index: SearchIndex, scores: Float64Array, candidates: number[], limit: number): number[] {
  const best: number[] = [];
  for (const doc of candidates) {
    if (best.length === limit && !ranksBefore(index, scores, doc, best[limit - 1]!)) continue;
    let at = best.length === limit ? limit - 1 : best.length;
    while (at > 0 && ranksBefore(index, scores, doc, best[at - 1]!)) {
      best[at] = best[at - 1]!;
      at--;
    }
    best[at] = doc;
  }
  return best;
}

/** The tools the caller may call that best match the query, best first; ties go by name. */
export function searchTools(index: SearchIndex, query: string, options: SearchOptions): SearchHit[] {
  const { limit, allowed } = SearchOptions.parse(options);
  if (limit === 0 || index.size === 0) return [];
  const terms = queryTerms(query);
  if (terms.size === 0) return [];

  const permitted = allowed ? new Int8Array(index.size) : undefined;
  const scores = new Float64Array(index.size);
  const candidates: number[] = [];
  for (const [term, queryWeight] of terms) {
    const posting = index.postings.get(term);
    if (!posting) continue;
    const weight = queryWeight * index.idf.get(term)!;
    const { docs, weights } = posting;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i]!;
      if (permitted) {
        if (permitted[doc] === 0) permitted[doc] = allowed!(index.names[doc]!) ? 1 : -1;
        if (permitted[doc] === -1) continue;
      }
      if (scores[doc] === 0) candidates.push(doc);
      scores[doc] = scores[doc]! + weight * weights[i]!;
    }
  }

  for (const doc of candidates) {
    const nameTerms = index.nameTerms[doc]!;
    if (nameTerms.length === 0) continue;
    let covered = 0;
    for (const term of nameTerms) covered += terms.get(term) ?? 0;
    scores[doc] = scores[doc]! + (NAME_COVERAGE_BONUS * covered) / nameTerms.length;
  }

  return topDocs(index, scores, candidates, limit).map((doc) => ({
    name: index.names[doc]!,
    groupId: index.groupIds[doc]!,
    score: scores[doc]!,
  }));
}
