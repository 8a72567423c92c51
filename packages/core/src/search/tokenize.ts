export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again all also am an and any are as at be been before being below both but by can could did do does doing " +
    "done each either else etc for from further had has have having he her here hers him his how i if in into is it its itself just " +
    "let lets may me might more most must my myself no nor not now of off on once only or other our ours out over own please same " +
    "shall she should so some such than that the their theirs them then there these they this those through to too under until up " +
    "us very via want wants was we were what when where which while who whom why will with would yet you your yours"
  ).split(" "),
);

/** Written short forms, read as the words they stand for, in the index and in queries alike. */
const ABBREVIATIONS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    pr: ["pull", "request"],
    prs: ["pull", "request"],
    repo: ["repository"],
    repos: ["repository"],
    org: ["organization"],
    orgs: ["organization"],
    organisation: ["organization"],
    organisations: ["organization"],
    js: ["javascript"],
    dir: ["directory"],
    dirs: ["directory"],
    msg: ["message"],
    info: ["information"],
  }),
);

const enum Kind {
  Other,
  Lower,
  Upper,
  Digit,
}

function kindAt(text: string, i: number): Kind {
  const code = text.charCodeAt(i);
  if (code >= 97 && code <= 122) return Kind.Lower;
  if (code >= 65 && code <= 90) return Kind.Upper;
  if (code >= 48 && code <= 57) return Kind.Digit;
  return Kind.Other;
}

/** "PRs" and "URLs": an acronym's plural s stays with it. */
const isAcronymPlural = (text: string, i: number) =>
  text.charCodeAt(i + 1) === 115 && kindAt(text, i + 2) !== Kind.Lower && kindAt(text, i - 1) === Kind.Upper;

function startsWord(text: string, i: number, previous: Kind, current: Kind): boolean {
  if (previous === Kind.Other) return true;
  if (current === Kind.Digit || previous === Kind.Digit) return current !== previous;
  if (current !== Kind.Upper) return false;
  if (previous === Kind.Lower) return true;
  return kindAt(text, i + 1) === Kind.Lower && !isAcronymPlural(text, i);
}

/** Words of a text, lower-cased: snake_case, kebab-case, camelCase, acronyms and digit runs are split apart. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  let previous = Kind.Other;
  for (let i = 0; i <= text.length; i++) {
    const current = i < text.length ? kindAt(text, i) : Kind.Other;
    if (current === Kind.Other) {
      if (start >= 0) words.push(text.slice(start, i).toLowerCase());
      start = -1;
    } else if (startsWord(text, i, previous, current)) {
      if (start >= 0) words.push(text.slice(start, i).toLowerCase());
      start = i;
    }
    previous = current;
  }
  return words;
}

const VOWEL = /[aeiouy]/;
const KEEP_FINAL_S = /(ss|us|is)$/;
const PLURAL_ES = /(ches|shes|xes|zes|sses)$/;
const NOUN_ION = /[ts]ion$/;

function undouble(word: string): string {
  const last = word[word.length - 1]!;
  const doubled = word.length >= 4 && last === word[word.length - 2] && !"aeioulsz".includes(last);
  return doubled ? word.slice(0, -1) : word;
}

function stripSuffix(word: string): string {
  if (word.endsWith("ing") && word.length >= 6 && VOWEL.test(word.slice(0, -3))) return undouble(word.slice(0, -3));
  if (word.endsWith("ied") && word.length >= 5) return `${word.slice(0, -3)}y`;
  if (word.endsWith("ed") && word.length >= 5 && VOWEL.test(word.slice(0, -2))) return undouble(word.slice(0, -2));
  if (word.endsWith("er") && word.length >= 6) return undouble(word.slice(0, -2));
  if (NOUN_ION.test(word) && word.length >= 6) return word.slice(0, -3);
  if (word.endsWith("ly") && word.length >= 6) return word.slice(0, -2);
  return word;
}

function singular(word: string): string {
  if (word.endsWith("ies") && word.length >= 5) return `${word.slice(0, -3)}y`;
  if (KEEP_FINAL_S.test(word)) return word;
  if (PLURAL_ES.test(word)) return word.slice(0, -2);
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

/** A light suffix stripper: forms of one word meet at one stem ("creating", "created", "creates" → "creat"); it is not a dictionary form. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  const stripped = stripSuffix(singular(word));
  return stripped.length >= 4 && stripped.endsWith("e") && !stripped.endsWith("ee") ? stripped.slice(0, -1) : stripped;
}

const termsByWord = new Map<string, readonly string[]>();
const MAX_CACHED_WORDS = 100_000;

function termsOf(word: string): readonly string[] {
  let terms = termsByWord.get(word);
  if (terms === undefined) {
    terms = (ABBREVIATIONS.get(word) ?? [word])
      .filter((spelled) => spelled.length >= 2 && !STOP_WORDS.has(spelled) && !/^\d+$/.test(spelled))
      .map(stem);
    if (termsByWord.size < MAX_CACHED_WORDS) termsByWord.set(word, terms);
  }
  return terms;
}

/** Index terms of a text: words split, abbreviations spelled out, stop words, numbers and single letters dropped, stemmed. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) {
    const wordTerms = termsOf(word);
    for (let i = 0; i < wordTerms.length; i++) terms.push(wordTerms[i]!);
  }
  return terms;
}
