import { describe, expect, test } from "vitest";
import { queryTerms } from "./rank";
import { synonymsOf } from "./synonyms";
import { stem } from "./tokenize";

describe("synonymsOf", () => {
  test("synonymsOf - a word reaches the others of its set, in their stemmed form, not itself", () => {
    expect(synonymsOf(stem("delete"))).toContain(stem("remove"));
    expect(synonymsOf(stem("remove"))).toContain(stem("delete"));
    expect(synonymsOf(stem("ticket"))).toEqual(expect.arrayContaining([stem("issue"), stem("bug")]));
    expect(synonymsOf(stem("delete"))).not.toContain(stem("delete"));
  });

  test("synonymsOf - a word in two sets reaches both", () => {
    expect(synonymsOf(stem("show"))).toEqual(expect.arrayContaining([stem("list"), stem("view")]));
  });

  test("synonymsOf - an unknown word has none", () => {
    expect(synonymsOf("zzyzx")).toEqual([]);
  });
});

describe("queryTerms", () => {
  test("queryTerms - the caller's words weigh 1 and their synonyms less", () => {
    const terms = queryTerms("remove the ticket");
    expect(terms.get(stem("remove"))).toBe(1);
    expect(terms.get(stem("ticket"))).toBe(1);
    expect(terms.get(stem("delete"))).toBeGreaterThan(0);
    expect(terms.get(stem("delete"))).toBeLessThan(1);
    expect(terms.get(stem("issue"))).toBeLessThan(1);
  });

  test("queryTerms - a word the caller wrote keeps its full weight when it is also a synonym of another", () => {
    const terms = queryTerms("delete remove");
    expect(terms.get(stem("delete"))).toBe(1);
    expect(terms.get(stem("remove"))).toBe(1);
  });
});
