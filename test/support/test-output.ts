/**
 * What is written straight to this test worker's stdout and stderr (Powertools' Logger writes there, not through
 * `console`) goes through `console` instead, so vitest treats it as the running test's output: left out when the test
 * passes and shown with it when it fails (`silent: "passed-only"` in vitest.config.ts).
 */
const throughConsole = (print: (text: string) => void) =>
  ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    print((typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")).replace(/\n$/, ""));
    const written = rest.find((argument) => typeof argument === "function") as (() => void) | undefined;
    written?.();
    return true;
  }) as typeof process.stdout.write;

process.stdout.write = throughConsole((text) => console.log(text));
process.stderr.write = throughConsole((text) => console.error(text));
