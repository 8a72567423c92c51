// ajv and its formats, reached only through `await import("./ajv")`: a bundle keeps them in a chunk of their own, loaded
// on first use, and the CommonJS packages are imported statically here, where every bundler and Node agree on their shape.
import { Ajv } from "ajv";
import type { Options } from "ajv";
import addFormats from "ajv-formats";

export const createAjv = (options: Options, { formats = false } = {}): Ajv => {
  const ajv = new Ajv(options);
  if (formats) addFormats(ajv);
  return ajv;
};
