import { tokenize } from "./tokenize";

/** Words that ask for the same thing when choosing a tool. Each line is a set; a word in two sets reaches both. */
export const SYNONYM_SETS: readonly string[] = [
  "remove delete erase drop discard destroy",
  "create add new make open",
  "list show enumerate display",
  "fetch get read retrieve view download show",
  "search find look locate query discover lookup",
  "edit update modify change alter set",
  "issue ticket bug",
  "comment reply respond answer",
  "star favorite bookmark",
  "notification notify inbox ping",
  "user person people member developer account",
  "organization company",
  "team group",
  "workflow pipeline ci action",
  "run execute launch trigger",
  "stop cancel terminate kill halt",
  "log output",
  "vulnerability security advisory cve",
  "secret credential password token",
  "dependency package library",
  "release version",
  "collaborator contributor",
  "diff patch",
  "copy fork clone",
  "save store put write",
  "directory folder tree",
  "summarise summarize compress shrink",
  "http web rest api url endpoint",
  "gist snippet",
  "message tell",
  "file document",
];

type Expansion = ReadonlyMap<string, readonly string[]>;

function buildExpansion(): Expansion {
  const related = new Map<string, Set<string>>();
  for (const line of SYNONYM_SETS) {
    const terms = [...new Set(line.split(" ").flatMap(tokenize))];
    for (const term of terms) {
      const set = related.get(term) ?? new Set<string>();
      for (const other of terms) if (other !== term) set.add(other);
      related.set(term, set);
    }
  }
  return new Map([...related].map(([term, set]) => [term, [...set].sort()]));
}

let expansion: Expansion | undefined;

/** The stemmed terms that mean the same as a stemmed term in a tool's vocabulary, the term itself excluded. */
export function synonymsOf(term: string): readonly string[] {
  expansion ??= buildExpansion();
  return expansion.get(term) ?? [];
}
