import { createRequire } from "node:module";

export type CedarWasm = typeof import("@cedar-policy/cedar-wasm/nodejs");

const ENGINE = "@cedar-policy/cedar-wasm/nodejs";
const requireHere = createRequire(import.meta.url);

/**
 * The engine failed inside itself (a WebAssembly trap such as "memory access out of bounds", or its stack overflowed):
 * its memory can no longer be trusted, so that instance is dropped and the next use loads a fresh one.
 */
export class CedarFault extends Error {
  constructor(operation: string, cause: Error) {
    super(`The policy engine failed inside ${operation} (${cause.message}); it was restarted.`);
  }
}

let instance: CedarWasm | undefined;
let generation = 0;

/** A new instance of the engine: its module loaded again, so it compiles and instantiates its own WebAssembly memory. */
function loadInstance(): CedarWasm {
  const path = requireHere.resolve(ENGINE);
  delete requireHere.cache[path];
  generation += 1;
  return requireHere(path) as CedarWasm;
}

const isFault = (error: unknown): error is Error => error instanceof WebAssembly.RuntimeError || error instanceof RangeError;

/** Every function of the engine, called on the instance of the moment; a fault drops that instance. */
const engine = new Proxy({} as CedarWasm, {
  get(_target, name: string) {
    const current = (instance ??= loadInstance());
    const member = current[name as keyof CedarWasm] as unknown;
    if (typeof member !== "function") return member;
    return (...args: unknown[]) => {
      try {
        return (member as (...args: unknown[]) => unknown).apply(current, args);
      } catch (error) {
        if (!isFault(error)) throw error;
        if (instance === current) instance = undefined;
        throw new CedarFault(name, error);
      }
    };
  },
});

/**
 * The policy engine. Loading it reads and compiles a 4 MB .wasm file, so it happens on the first policy evaluated,
 * not at init. A fault inside it costs the one answer it happened in: the instance is replaced (cedarGeneration).
 */
export async function cedar(): Promise<CedarWasm> {
  instance ??= loadInstance();
  return engine;
}

/** Which instance of the engine is current: what one instance holds (its preparsed policy sets) is gone with it. */
export const cedarGeneration = () => generation;

/** Whether the engine loads and answers a policy (loading it when nothing has yet): the deep health check. */
export function cedarAnswers(): boolean {
  try {
    return engine.checkParsePolicySet({ staticPolicies: "permit(principal, action, resource);" }).type === "success";
  } catch {
    return false;
  }
}
