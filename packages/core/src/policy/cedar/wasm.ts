export type CedarWasm = typeof import("@cedar-policy/cedar-wasm/nodejs");

let loading: Promise<CedarWasm> | undefined;

/** Importing cedar-wasm reads and compiles a 4 MB .wasm file, so it happens on the first policy evaluated, not at init. */
export function cedar(): Promise<CedarWasm> {
  loading ??= import("@cedar-policy/cedar-wasm/nodejs").catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
