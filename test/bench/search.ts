// Tool search, measured: recall and MRR on the evaluation set over the reference organisation, and speed on a synthetic
// catalog of 1,000 groups x 20 tools. `npx tsx test/bench/search.ts` prints the figures on its own.
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { buildSearchIndex, searchTools } from "../../packages/core/src/search/index";
import type { SearchEntry } from "../../packages/core/src/search/index";
import { referenceCatalog, SEARCH_TASKS } from "./search-eval";
import type { SearchTask } from "./search-eval";
import type { Note, Out } from "./support";

type Ranker = (query: string, limit: number) => string[];

const CUTOFFS = [1, 3, 5, 10] as const;
const SYNTHETIC_GROUPS = 1_000;
const TOOLS_PER_GROUP = 20;
const LATENCY_WARMUP = 200;
const LATENCY_MEASURED = 2_000;
const BUILDS = 5;

export function evaluate(tasks: readonly SearchTask[], rank: Ranker) {
  const found = Object.fromEntries(CUTOFFS.map((k) => [k, 0])) as Record<(typeof CUTOFFS)[number], number>;
  let reciprocalRanks = 0;
  const misses: string[] = [];
  for (const { task, expected } of tasks) {
    const ranked = rank(task, 10);
    const position = ranked.findIndex((name) => expected.includes(name));
    for (const k of CUTOFFS) if (position >= 0 && position < k) found[k]++;
    if (position >= 0) reciprocalRanks += 1 / (position + 1);
    if (position < 0 || position >= 5) misses.push(`"${task}" wants ${expected.join("|")}, got ${ranked.slice(0, 3).join(", ")}`);
  }
  const recall = (k: (typeof CUTOFFS)[number]) => found[k] / tasks.length;
  return { recall, mrr: reciprocalRanks / tasks.length, misses };
}

/** The comparison: Okapi BM25 over a tool's name and description, split on anything but letters and digits, nothing else. */
export function plainBm25(entries: readonly SearchEntry[]): Ranker {
  const words = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const docs = entries.map((entry) => words(`${entry.definition.function.name} ${entry.definition.function.description}`));
  const average = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length;
  const df = new Map<string, number>();
  for (const doc of docs) for (const word of new Set(doc)) df.set(word, (df.get(word) ?? 0) + 1);
  return (query, limit) => {
    const terms = new Set(words(query));
    const scored = docs.map((doc, i) => {
      let score = 0;
      for (const term of terms) {
        const tf = doc.filter((word) => word === term).length;
        if (tf === 0) continue;
        const idf = Math.log(1 + (docs.length - df.get(term)! + 0.5) / (df.get(term)! + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.length) / average));
      }
      return { name: entries[i]!.definition.function.name, score };
    });
    return scored
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
      .slice(0, limit)
      .map((hit) => hit.name);
  };
}

function generator(start: number) {
  let state = start >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return { next, pick };
}

const DOMAINS = [
  "billing", "calendar", "email", "crm", "storage", "analytics", "inventory", "shipping", "payroll", "helpdesk",
  "chat", "wiki", "monitoring", "dns", "database", "search", "ads", "survey", "maps", "translation",
  "video", "audio", "printing", "hr", "legal", "tax", "banking", "weather", "flights", "hotels",
];
const NOUNS = [
  "invoice", "customer", "event", "message", "bucket", "report", "item", "order", "shipment", "employee",
  "ticket", "page", "alert", "record", "table", "index", "campaign", "response", "route", "document",
  "channel", "contact", "subscription", "payment", "refund", "label", "attachment", "folder", "dashboard", "metric",
  "schedule", "booking", "account", "user", "note", "comment", "task", "project", "webhook", "key",
];
const VERBS = ["list", "get", "create", "update", "delete", "search", "export", "import", "archive", "restore", "send", "cancel", "approve", "sync"];
const ADJECTIVES = ["recent", "archived", "pending", "shared", "draft", "scheduled", "failed", "active", "private", "public"];
const PARAMETERS = [
  ["id", "The identifier of the"], ["query", "Text to look for in the"], ["limit", "How many results to return for the"],
  ["cursor", "Pagination cursor from the previous page of"], ["since", "Only return changes after this time for the"],
  ["status", "Filter by the status of the"], ["owner", "The account that owns the"], ["tags", "Tags attached to the"],
] as const;

/** 1,000 groups of 20 tools each, with varied plausible names, descriptions and parameters, the same on every run. */
export function syntheticCatalog(start = 20_260_728): SearchEntry[] {
  const random = generator(start);
  const entries: SearchEntry[] = [];
  for (let g = 0; g < SYNTHETIC_GROUPS; g++) {
    const domain = random.pick(DOMAINS);
    const groupId = `${domain}_${g.toString().padStart(4, "0")}`;
    const groupDescription = `${domain} service ${g}: manage ${random.pick(NOUNS)}s, ${random.pick(NOUNS)}s and ${random.pick(NOUNS)}s.`;
    for (let t = 0; t < TOOLS_PER_GROUP; t++) {
      const verb = random.pick(VERBS);
      const noun = random.pick(NOUNS);
      const adjective = random.pick(ADJECTIVES);
      const parameters = Object.fromEntries(
        Array.from({ length: 2 + Math.floor(random.next() * 4) }, () => random.pick(PARAMETERS)).map(([name, text]) => [
          `${name}${noun[0]!.toUpperCase()}${noun.slice(1)}`,
          { type: "string", description: `${text} ${noun}.` },
        ]),
      );
      entries.push({
        groupId,
        groupDescription,
        definition: {
          type: "function",
          function: {
            name: `${domain}${g}_${verb}_${noun}_${t}`,
            description:
              `${verb[0]!.toUpperCase()}${verb.slice(1)} ${adjective} ${noun}s in the ${domain} service. ` +
              `Returns the ${noun} with its ${random.pick(NOUNS)} and ${random.pick(NOUNS)}; use it when a ${random.pick(NOUNS)} ` +
              `needs its ${noun} ${random.pick(["checked", "changed", "shared", "reviewed", "counted"])}.`,
            parameters: { type: "object", properties: parameters },
          },
        },
      });
    }
  }
  return entries;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const rounded = (value: number) => Math.round(value * 1000) / 1000;

export function benchSearch(out: Out, note: Note) {
  const reference = referenceCatalog();
  const index = buildSearchIndex(reference);
  const ours = evaluate(SEARCH_TASKS, (query, limit) => searchTools(index, query, { limit }).map((hit) => hit.name));
  note(`search: ${SEARCH_TASKS.length} tasks over ${reference.length} tools (21 GitHub toolsets + toolgate's built-in groups)`);
  for (const k of CUTOFFS) out(`search_recall_at_${k}`, rounded(ours.recall(k)));
  out("search_mrr", rounded(ours.mrr));
  for (const miss of ours.misses) note(`search miss @5: ${miss}`);
  const baseline = evaluate(SEARCH_TASKS, plainBm25(reference));
  out("search_baseline_bm25_recall_at_1", rounded(baseline.recall(1)));
  out("search_baseline_bm25_recall_at_5", rounded(baseline.recall(5)));
  out("search_baseline_bm25_mrr", rounded(baseline.mrr));

  const synthetic = syntheticCatalog();
  const buildTimes: number[] = [];
  let big = buildSearchIndex(synthetic);
  for (let i = 0; i < BUILDS; i++) {
    const started = performance.now();
    big = buildSearchIndex(synthetic);
    buildTimes.push(performance.now() - started);
  }
  const random = generator(7);
  const queries = [
    ...SEARCH_TASKS.map((task) => task.task),
    ...Array.from({ length: 200 }, () => `${random.pick(VERBS)} ${random.pick(ADJECTIVES)} ${random.pick(NOUNS)}s in ${random.pick(DOMAINS)}`),
  ];
  const roleGroups = new Set(Array.from({ length: 50 }, () => `${random.pick(DOMAINS)}`));
  const groupOf = new Map(synthetic.map((entry) => [entry.definition.function.name, entry.groupId.split("_")[0]!]));
  const allowed = (name: string) => roleGroups.has(groupOf.get(name)!);
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_WARMUP + LATENCY_MEASURED; i++) {
    const query = queries[i % queries.length]!;
    const started = performance.now();
    searchTools(big, query, { limit: 10, ...(i % 2 === 1 ? { allowed } : {}) });
    if (i >= LATENCY_WARMUP) samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  buildTimes.sort((a, b) => a - b);
  note(`search latency: ${synthetic.length} tools, ${LATENCY_MEASURED} searches (limit 10, every other one filtered to a role's groups)`);
  out("search_p50_ms", rounded(percentile(samples, 50)));
  out("search_p99_ms", rounded(percentile(samples, 99)));
  out("search_index_build_ms", rounded(percentile(buildTimes, 50)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  benchSearch(
    (name, value) => console.log(`${name}=${value}`),
    (text) => console.error(`# ${text}`),
  );
