import * as z from "zod";
import { ToolDefinition } from "../tool/schema";

export const SearchEntry = z.object({
  definition: ToolDefinition,
  groupId: z.string().min(1),
  groupDescription: z.string(),
});
export type SearchEntry = z.infer<typeof SearchEntry>;

export const SearchHit = z.object({
  name: z.string(),
  groupId: z.string(),
  score: z.number(),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const MAX_SEARCH_LIMIT = 1000;
export const MAX_QUERY_CHARS = 1000;

export const SearchOptions = z.object({
  limit: z.number().int().min(0).max(MAX_SEARCH_LIMIT),
  /** The caller's visibility: a tool it may not call is never a candidate. */
  allowed: z.custom<(name: string) => boolean>((value) => typeof value === "function").optional(),
});
export type SearchOptions = z.infer<typeof SearchOptions>;
