import fc from "fast-check";
import { expect, test } from "vitest";
import {
  MAX_STORED_BYTES,
  MAX_STORED_DEPTH,
  MIN_SECRET_LENGTH,
  REDACTED,
  depthOf,
  isSecretKey,
  redact,
  redactArguments,
  scrubText,
  scrubValue,
  storedArguments,
  storedCallArguments,
  storedError,
  storedResult,
} from "./redact";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

const SECRET_KEYS = [
  "password",
  "PASSWORD",
  "Password",
  "userPassword",
  "db_password",
  "token",
  "TOKEN",
  "accessToken",
  "refresh_token",
  "secret",
  "Secret",
  "client_secret",
  "clientSecretValue",
  "api_key",
  "API_KEY",
  "apiKey",
  "ApiKey",
  "x-api-key",
  "authorization",
  "Authorization",
  "AUTHORIZATION",
];

const ORDINARY_KEYS = ["name", "query", "path", "url", "content", "username", "key", "keyboard", "passage", "author", "count", "limit", "user"];

test("redact - replaces the value of every secret-looking key, in any case", () => {
  for (const key of SECRET_KEYS) expect(redact({ [key]: "hunter2" }), key).toEqual({ [key]: REDACTED });
  expect(REDACTED).toBe("[REDACTED]");
});

test("redact - leaves ordinary keys untouched", () => {
  const args = Object.fromEntries(ORDINARY_KEYS.map((key, index) => [key, `value ${index}`]));
  expect(redact(args)).toEqual(args);
});

test("redact - replaces whole values under secret keys, whatever their type", () => {
  expect(redact({ token: 12345, secret: { nested: "x" }, password: ["a", "b"], apiKey: null, authorization: true })).toEqual({
    token: REDACTED,
    secret: REDACTED,
    password: REDACTED,
    apiKey: REDACTED,
    authorization: REDACTED,
  });
});

test("redact - reaches secret keys nested in objects and arrays", () => {
  const args = {
    url: "https://example.com",
    headers: { Authorization: "Bearer abc", accept: "application/json" },
    users: [
      { name: "ann", password: "p1" },
      [{ deeper: { api_key: "k1", ok: 1 } }],
    ],
    list: ["token", "password"],
  };
  expect(redact(args)).toEqual({
    url: "https://example.com",
    headers: { Authorization: REDACTED, accept: "application/json" },
    users: [{ name: "ann", password: REDACTED }, [{ deeper: { api_key: REDACTED, ok: 1 } }]],
    list: ["token", "password"],
  });
});

test("redact - does not mutate its input", () => {
  const args = { password: "p", nested: { token: "t", keep: [1, { secret: "s" }] } };
  const before = structuredClone(args);
  const result = redact(args);
  expect(args).toEqual(before);
  expect(result).not.toBe(args);
  expect(JSON.stringify(result)).not.toMatch(/"p"|"t"|"s"/);
});

test("redact - passes scalars and null through", () => {
  for (const value of ["text", 1, true, null, undefined]) expect(redact(value)).toBe(value);
});

test("storedArguments - keeps small arguments whole, redacted and unflagged", () => {
  const stored = storedArguments({ query: "q", password: "p" });
  expect(stored).toEqual({ arguments: { query: "q", password: REDACTED } });
  expect(stored).not.toHaveProperty("argumentsTruncated");
});

test("storedArguments - keeps arguments of exactly 16 KiB whole", () => {
  const overhead = bytes(JSON.stringify({ text: "" }));
  const args = { text: "x".repeat(MAX_STORED_BYTES - overhead) };
  expect(bytes(JSON.stringify(args))).toBe(MAX_STORED_BYTES);
  expect(storedArguments(args)).toEqual({ arguments: args });
});

test("storedArguments - truncates arguments over 16 KiB and flags them", () => {
  const args = { text: "x".repeat(MAX_STORED_BYTES) };
  const stored = storedArguments(args);
  expect(stored.argumentsTruncated).toBe(true);
  expect(typeof stored.arguments).toBe("string");
  const text = stored.arguments as string;
  expect(bytes(text)).toBeLessThanOrEqual(MAX_STORED_BYTES);
  expect(bytes(text)).toBeGreaterThan(MAX_STORED_BYTES - 4);
  expect(JSON.stringify(args).startsWith(text)).toBe(true);
});

test("storedArguments - redacts before truncating, so no secret survives in the cut text", () => {
  const stored = storedArguments({ password: "hunter2-secret-value", padding: "y".repeat(20_000) });
  expect(stored.argumentsTruncated).toBe(true);
  expect(stored.arguments as string).toContain(REDACTED);
  expect(stored.arguments as string).not.toContain("hunter2");
});

test("storedArguments - does not break multi-byte characters at the cut", () => {
  for (const character of ["é", "€", "😀"])
    for (let prefix = 0; prefix < 4; prefix++) {
      const args = { text: "a".repeat(prefix) + character.repeat(MAX_STORED_BYTES) };
      const stored = storedArguments(args);
      const text = stored.arguments as string;
      const label = `${character} after ${prefix}`;
      expect(stored.argumentsTruncated, label).toBe(true);
      expect(text, label).not.toContain("\uFFFD");
      expect(JSON.stringify(args).startsWith(text), label).toBe(true);
      expect(bytes(text), label).toBeLessThanOrEqual(MAX_STORED_BYTES);
      expect(bytes(text), label).toBeGreaterThan(MAX_STORED_BYTES - 4);
    }
});

test("storedResult - leaves a result under 16 KiB alone", () => {
  const result = { content: "done", type: "json" as const, metadata: { rows: 3 } };
  const stored = storedResult(result);
  expect(stored).toEqual(result);
  expect(stored).not.toHaveProperty("truncated");
});

test("storedResult - truncates a result over 16 KiB and flags it", () => {
  const content = "z".repeat(3 * MAX_STORED_BYTES);
  const stored = storedResult({ content, type: "text" });
  expect(stored.truncated).toBe(true);
  expect(stored.type).toBe("text");
  expect(content.startsWith(stored.content)).toBe(true);
  expect(stored.content.length).toBeGreaterThan(MAX_STORED_BYTES / 2);
  expect(bytes(JSON.stringify(stored))).toBeLessThanOrEqual(MAX_STORED_BYTES);
});

test("storedResult - does not break multi-byte characters at the cut", () => {
  for (const character of ["é", "€", "😀"])
    for (let prefix = 0; prefix < 4; prefix++) {
      const content = "a".repeat(prefix) + character.repeat(MAX_STORED_BYTES);
      const stored = storedResult({ content, type: "text" });
      const label = `${character} after ${prefix}`;
      expect(stored.truncated, label).toBe(true);
      expect(stored.content, label).not.toContain("\uFFFD");
      expect(content.startsWith(stored.content), label).toBe(true);
      expect(bytes(JSON.stringify(stored)), label).toBeLessThanOrEqual(MAX_STORED_BYTES);
    }
});

test("storedResult - a content of any length is cut where its first 16 KiB alone would be cut", () => {
  for (const character of ["z", "é", "😀", "\n"]) {
    const start = "a" + character.repeat(MAX_STORED_BYTES);
    const label = JSON.stringify(character);
    expect(storedResult({ content: start + character.repeat(64 * MAX_STORED_BYTES), type: "text" }), label).toEqual(storedResult({ content: start, type: "text" }));
  }
});

test("isSecretKey - answers a key the same however often it is asked", () => {
  for (let round = 0; round < 3; round++) expect(["apiToken", "name", "pwd", "author"].map(isSecretKey)).toEqual([true, false, true, false]);
});

test("storedResult - keeps the stored result within 16 KiB when the content needs JSON escaping", () => {
  for (const character of ['"', "\\", "\n", "\u0001"]) {
    const content = character.repeat(2 * MAX_STORED_BYTES);
    const stored = storedResult({ content, type: "text" });
    const label = JSON.stringify(character);
    expect(stored.truncated, label).toBe(true);
    expect(content.startsWith(stored.content), label).toBe(true);
    expect(bytes(JSON.stringify(stored)), label).toBeLessThanOrEqual(MAX_STORED_BYTES);
  }
});

test("storedResult - does not mutate the result it truncates", () => {
  const result = { content: "q".repeat(2 * MAX_STORED_BYTES), type: "text" as const, metadata: { a: 1 } };
  const before = structuredClone(result);
  storedResult(result);
  expect(result).toEqual(before);
});

test("isSecretKey - names made of secret words are secret, ordinary words that merely contain them are not", () => {
  for (const key of ["password", "accessToken", "refresh_token", "x-api-key", "apiKey", "API_KEY", "clientSecret", "Authorization", "db-passwd", "sessionId"])
    expect(isSecretKey(key), key).toBe(true);
  for (const key of ["bypass", "compass", "keyboard", "path", "authorName", "author", "authority", "oauthProvider"]) expect(isSecretKey(key), key).toBe(false);
});

test("isSecretKey - any key containing a secret word is secret, in any case and spelling", () => {
  const keys = [
    "APITOKEN",
    "dbpassword",
    "password1",
    "accessToken",
    "clientSecret",
    "private_key",
    "PrivateKey",
    "credentials",
    "x-auth-token",
    "Authorization",
    "pass_word",
    "DB_PASSWD",
    "passphrase",
    "aws_access_key_id",
    "SESSION_ID",
    "Set-Cookie",
    "pwd",
    "db-pwd",
    "auth",
    "basicAuth",
    "AUTH_HEADER",
    "ＰＡＳＳＷＯＲＤ",
  ];
  for (const key of keys) expect(isSecretKey(key), key).toBe(true);
});

test("isSecretKey - ordinary keys stay ordinary", () => {
  for (const key of ORDINARY_KEYS) expect(isSecretKey(key), key).toBe(false);
});

test("isSecretKey - token counts (tokens, max_tokens, tokenizer) are secret-looking too: accepted over-redaction of the stored record", () => {
  for (const key of ["tokens", "max_tokens", "maxTokens", "tokenizer"]) expect(isSecretKey(key), key).toBe(true);
  expect(storedArguments({ prompt: "hi", max_tokens: 100 })).toEqual({ arguments: { prompt: "hi", max_tokens: REDACTED } });
});

test("redact - redacts the value of { name, value } and { key, value } pairs whose name is secret-looking", () => {
  const args = {
    headers: [
      { name: "Authorization", value: "Bearer abc" },
      { name: "Accept", value: "application/json" },
    ],
    env: [
      { key: "DB_PASSWORD", value: "p", comment: "kept" },
      { key: "HOME", value: "/home/x" },
    ],
    tags: [{ Name: "api_key", Value: { nested: "k" } }],
  };
  expect(redact(args)).toEqual({
    headers: [
      { name: "Authorization", value: REDACTED },
      { name: "Accept", value: "application/json" },
    ],
    env: [
      { key: "DB_PASSWORD", value: REDACTED, comment: "kept" },
      { key: "HOME", value: "/home/x" },
    ],
    tags: [{ Name: "api_key", Value: REDACTED }],
  });
});

test("redact - a parsed __proto__ key stays an own key, redacted inside, and the prototype is untouched", () => {
  const args = JSON.parse('{ "__proto__": { "password": "x" }, "constructor": { "token": "y" } }') as unknown;
  const redacted = redact(args) as Record<string, unknown>;
  expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
  expect(Object.hasOwn(redacted, "__proto__")).toBe(true);
  expect(Object.hasOwn(redacted, "constructor")).toBe(true);
  expect(JSON.stringify(redacted)).toBe('{"__proto__":{"password":"[REDACTED]"},"constructor":{"token":"[REDACTED]"}}');
  expect(({} as Record<string, unknown>).password).toBeUndefined();
  const scrubbed = scrubValue(args, ["zzzz"]) as Record<string, unknown>;
  expect(Object.getPrototypeOf(scrubbed)).toBe(Object.prototype);
  expect(JSON.stringify(scrubbed)).toBe(JSON.stringify(redacted));
});

test("redact - is safe on values 64 levels deep and far deeper", () => {
  let deep: unknown = { password: "hunter22" };
  for (let level = 0; level < 63; level++) deep = { inner: deep };
  expect(depthOf(deep)).toBe(64);
  expect(JSON.stringify(redact(deep))).not.toContain("hunter22");
  expect(redactArguments(deep).secrets).toEqual(["hunter22"]);
  let deeper: unknown = ["hunter22"];
  for (let level = 0; level < 20_000; level++) deeper = [deeper];
  expect(depthOf(deeper)).toBe(20_001);
  expect(depthOf(scrubValue(deeper, ["hunter22"]))).toBe(20_001);
});

test("redactArguments - collects every removed value: nested, numbers as text, deduplicated, longest first, short ones and booleans skipped", () => {
  const { redacted, secrets } = redactArguments({
    query: "q",
    password: "hunter22",
    pin: 1,
    nested: { token: 123456, again: { apiKey: "hunter22" } },
    credentials: { user: "alice-admin", pass: ["sesame-open", { deeper: "xyz" }], mfa: true, none: null },
    headers: [{ name: "Authorization", value: "Bearer abcdef" }],
    secret: "abc",
  });
  expect(redacted).toEqual({
    query: "q",
    password: REDACTED,
    pin: 1,
    nested: { token: REDACTED, again: { apiKey: REDACTED } },
    credentials: REDACTED,
    headers: [{ name: "Authorization", value: REDACTED }],
    secret: REDACTED,
  });
  expect(secrets).toEqual(["Bearer abcdef", "alice-admin", "sesame-open", "hunter22", "123456", "abcdef"]);
  expect(MIN_SECRET_LENGTH).toBe(4);
  expect(secrets.every((secret) => secret.length >= MIN_SECRET_LENGTH)).toBe(true);
});

test("redactArguments - nothing to collect from ordinary arguments, and the input is not mutated", () => {
  const args = { query: "q", list: [1, { path: "/tmp" }] };
  const before = structuredClone(args);
  expect(redactArguments(args)).toEqual({ redacted: args, secrets: [] });
  expect(args).toEqual(before);
});

test("scrubText - replaces plain occurrences of every secret", () => {
  expect(scrubText("your password is hunter22, hunter22!", ["hunter22"])).toBe(`your password is ${REDACTED}, ${REDACTED}!`);
  expect(scrubText("a.b*c and abbc", ["a.b*c"])).toBe(`${REDACTED} and abbc`);
  expect(scrubText("nothing here", [])).toBe("nothing here");
  expect(scrubText("nothing here", [""])).toBe("nothing here");
});

test("scrubText - replaces the longest secret first", () => {
  expect(scrubText("key=hunter22-extended", ["hunter22", "hunter22-extended"])).toBe(`key=${REDACTED}`);
});

test("scrubText - catches JSON-escaped occurrences of a secret with a quote or backslash", () => {
  const quoted = 'pa"ss\\word';
  const echoed = JSON.stringify({ echo: quoted });
  expect(echoed).not.toContain(quoted);
  expect(scrubText(echoed, [quoted])).toBe(`{"echo":"${REDACTED}"}`);
  expect(scrubText(`plain ${quoted}`, [quoted])).toBe(`plain ${REDACTED}`);
  const withNewline = "line1\nline2";
  expect(scrubText(JSON.stringify([withNewline]), [withNewline])).toBe(`["${REDACTED}"]`);
});

test("scrubValue - redacts secret-looking keys and scrubs every string leaf and key, without mutating", () => {
  const value = { note: "echo hunter22", list: ["hunter22", 7, null, { clientSecret: "s" }], hunter22: "as a key", ok: true };
  const before = structuredClone(value);
  expect(scrubValue(value, ["hunter22"])).toEqual({
    note: `echo ${REDACTED}`,
    list: [REDACTED, 7, null, { clientSecret: REDACTED }],
    [REDACTED]: "as a key",
    ok: true,
  });
  expect(value).toEqual(before);
  expect(scrubValue("hunter22!", ["hunter22"])).toBe(`${REDACTED}!`);
});

test("storedCallArguments - returns the stored arguments and the secrets taken out of them", () => {
  const result = storedCallArguments({ query: "q", headers: [{ key: "X-Api-Key", value: "k-123456" }], password: "hunter22" });
  expect(result).toEqual({
    stored: { arguments: { query: "q", headers: [{ key: "X-Api-Key", value: REDACTED }], password: REDACTED } },
    secrets: ["k-123456", "hunter22"],
  });
  expect(storedArguments({ query: "q", password: "hunter22" })).toEqual({ arguments: { query: "q", password: REDACTED } });
});

test("storedCallArguments - scrubs a redacted value repeated under an ordinary key", () => {
  const { stored } = storedCallArguments({ password: "hunter22", note: "my password is hunter22" });
  expect(stored).toEqual({ arguments: { password: REDACTED, note: `my password is ${REDACTED}` } });
});

test("storedCallArguments - flags truncation like storedArguments", () => {
  const { stored, secrets } = storedCallArguments({ password: "hunter22-secret", padding: "y".repeat(20_000) });
  expect(stored.argumentsTruncated).toBe(true);
  expect(stored.arguments as string).not.toContain("hunter22");
  expect(secrets).toEqual(["hunter22-secret"]);
});

test("storedResult - scrubs an echoing tool's JSON content and plain-text content", () => {
  const { secrets } = redactArguments({ password: "hunter22" });
  const json = storedResult({ content: '{"echo":{"password":"hunter22"}}', type: "json" }, secrets);
  expect(json).toEqual({ content: `{"echo":{"password":"${REDACTED}"}}`, type: "json" });
  const echoedUnderOrdinaryKey = storedResult({ content: '{ "echo": { "input": "hunter22" } }', type: "json" }, secrets);
  expect(echoedUnderOrdinaryKey.content).toBe(`{"echo":{"input":"${REDACTED}"}}`);
  const escaped = storedResult({ content: '{"echo":"hunter\\u0032\\u0032"}', type: "json" }, secrets);
  expect(escaped.content).toBe(`{"echo":"${REDACTED}"}`);
  const text = storedResult({ content: "your password is hunter22", type: "text" }, secrets);
  expect(text).toEqual({ content: `your password is ${REDACTED}`, type: "text" });
});

test("storedResult - redacts secret-looking keys in JSON content even with no secrets given, and keeps untouched JSON text as it is", () => {
  const stored = storedResult({ content: '[{"user":"ann","apiKey":"k1"},{"name":"Cookie","value":"c=1"}]', type: "json" });
  expect(JSON.parse(stored.content)).toEqual([{ user: "ann", apiKey: REDACTED }, { name: "Cookie", value: REDACTED }]);
  const untouched = '{ "id": 12345678901234567890, "ok": true }';
  expect(storedResult({ content: untouched, type: "json" }).content).toBe(untouched);
  expect(storedResult({ content: '{"password": broken', type: "text" }).content).toBe('{"password": broken');
});

test("storedResult - JSON content is kept as its text exactly when redacting and scrubbing it would change nothing, else stored redacted", () => {
  const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("token", "apiKey", "name", "key", "value", "password", "__proto__"));
  const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("hunter22", "Cookie", "Authorization"), fc.integer(), fc.boolean(), fc.constant(null));
  const { tree } = fc.letrec((node) => ({
    tree: fc.oneof({ depthSize: "small" }, leaf, fc.array(node("tree"), { maxLength: 4 }), fc.dictionary(key, node("tree"), { maxKeys: 4 })),
  }));
  const container = fc.oneof(fc.array(tree, { maxLength: 4 }), fc.dictionary(key, tree, { maxKeys: 4 }));
  fc.assert(
    fc.property(container, fc.subarray(["hunter22", "Cookie"]), (value, secrets) => {
      const content = JSON.stringify(value);
      const cleaned = scrubValue(value, secrets);
      const expected = JSON.stringify(cleaned) === content ? content : JSON.stringify(cleaned);
      expect(storedResult({ content, type: "json" }, secrets).content).toBe(expected);
    }),
    { numRuns: 500 },
  );
});

test("storedResult - redacts secret-looking keys in metadata and scrubs its strings", () => {
  const stored = storedResult(
    { content: "done", type: "text", metadata: { rows: 3, token: "t-1", request: { echo: "sent hunter22" }, headers: [{ name: "Set-Cookie", value: "sid=1" }] } },
    ["hunter22"],
  );
  expect(stored).toEqual({
    content: "done",
    type: "text",
    metadata: { rows: 3, token: REDACTED, request: { echo: `sent ${REDACTED}` }, headers: [{ name: "Set-Cookie", value: REDACTED }] },
  });
});

test("storedResult - still drops metadata too deep to store, and does not mutate the result it scrubs", () => {
  let deep: Record<string, unknown> = { leaf: "hunter22" };
  for (let level = 0; level < MAX_STORED_DEPTH; level++) deep = { inner: deep };
  const result = { content: '{"password":"hunter22"}', type: "json" as const, metadata: deep };
  const before = structuredClone(result);
  const stored = storedResult(result, ["hunter22"]);
  expect(stored).toEqual({ content: `{"password":"${REDACTED}"}`, type: "json" });
  expect(result).toEqual(before);
});

test("storedResult - scrubs before truncating, so a secret across the 16 KiB cut leaves no part behind", () => {
  const plainCut = storedResult({ content: "z".repeat(3 * MAX_STORED_BYTES), type: "text" }).content.length;
  const secret = "hunter22-across-the-cut";
  for (const offset of [-secret.length, -12, -5, -1, 0]) {
    const content = "z".repeat(plainCut + offset) + secret + "z".repeat(2 * MAX_STORED_BYTES);
    const stored = storedResult({ content, type: "text" }, [secret]);
    const label = `offset ${offset}`;
    expect(stored.truncated, label).toBe(true);
    expect(stored.content, label).not.toContain("hunt");
    expect(stored.content, label).not.toMatch(/h$|hu$|hun$/);
    expect(bytes(JSON.stringify(stored)), label).toBeLessThanOrEqual(MAX_STORED_BYTES);
    expect(stored.content.length, label).toBeGreaterThan(MAX_STORED_BYTES / 2);
  }
});

test("storedResult - JSON content nested too deep to re-serialise is stored as [REDACTED] when it holds a secret, and as is otherwise", () => {
  const depth = 10_000;
  const secretive = "[".repeat(depth) + '{"password":"x"}' + "]".repeat(depth);
  expect(storedResult({ content: secretive, type: "json" }).content).toBe(REDACTED);
  const harmless = "[".repeat(depth) + "1" + "]".repeat(depth);
  const stored = storedResult({ content: harmless, type: "json" });
  expect(harmless.startsWith(stored.content)).toBe(true);
  expect(bytes(JSON.stringify(stored))).toBeLessThanOrEqual(MAX_STORED_BYTES);
});

test("storedError - scrubs the secrets from the message and keeps the code", () => {
  expect(storedError({ code: "tool_failed", message: 'login failed for "hunter22" (pa\\"ss)' }, ["hunter22", 'pa"ss'])).toEqual({
    code: "tool_failed",
    message: `login failed for "${REDACTED}" (${REDACTED})`,
  });
  expect(storedError({ code: "timeout", message: "took too long" }, [])).toEqual({ code: "timeout", message: "took too long" });
});

test("redactArguments - the credential of an authorization value is a secret of its own, so it is scrubbed when echoed alone", () => {
  const { secrets } = redactArguments({ headers: { Authorization: "Bearer sk-live-987654321" }, auth: "Basic dXNlcjpwYXNz" });
  expect(secrets).toEqual(expect.arrayContaining(["Bearer sk-live-987654321", "sk-live-987654321", "Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"]));
  expect(scrubText('{"authenticatedWith":"sk-live-987654321"}', secrets)).toBe('{"authenticatedWith":"[REDACTED]"}');
  expect(redactArguments({ note: "Bearer of good news" }).secrets).toEqual([]);
});
