import { expect, test } from "vitest";
import { MAX_STORED_BYTES, REDACTED, redact, storedArguments, storedResult, isSecretKey } from "./redact";

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
  for (const key of ["max_tokens", "bypass", "compass", "keyboard", "path", "authorName", "tokenizer"]) expect(isSecretKey(key), key).toBe(false);
});
