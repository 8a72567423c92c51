import { describeTool } from "@toolgate/module/tool";
import type { ToolDescription } from "@toolgate/module/tool";
import * as z from "zod";
import type { BuiltinGroup } from "./group";

export const httpRequest = {
  name: "http_request",
  description:
    "Send an HTTP request and return the response as { status, headers, body }, with a long body truncated. Use it to call web APIs or fetch pages; only http and https URLs are allowed.",
  parameters: z.strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .regex(/^https?:\/\/[^\s/?#]+\S*$/)
      .max(8192)
      .describe("Absolute http:// or https:// URL, including any query string."),
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]).default("GET").describe("HTTP method."),
    headers: z
      .record(z.string().min(1).max(256), z.string().max(8192))
      .optional()
      .describe("Request headers as name/value pairs, e.g. {\"Content-Type\": \"application/json\"}."),
    body: z.string().max(1_000_000).optional().describe("Raw request body; serialise JSON yourself and set a matching Content-Type header."),
  }),
} satisfies ToolDescription;

export const networkGroup: BuiltinGroup<"network"> = {
  id: "network",
  description: "Make HTTP requests to web servers and APIs.",
  executor: { type: "client" },
  tools: [describeTool(httpRequest)],
};
