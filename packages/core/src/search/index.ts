export { buildSearchIndex, type SearchIndex } from "./index-build";
export { searchTools, queryTerms } from "./rank";
export { SearchEntry, SearchHit, SearchOptions } from "./schema";
export { splitWords, stem, tokenize } from "./tokenize";
export { synonymsOf } from "./synonyms";
export { SearchQuery, searchVisible } from "./visible";
