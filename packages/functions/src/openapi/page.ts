import { createHash } from "node:crypto";
import { html, raw } from "hono/html";
import type { openApiDocument } from "./document";

type Document = ReturnType<typeof openApiDocument>;
type Operation = { operationId: string; tags: string[]; summary: string; security: Array<Record<string, []>>; parameters: Array<{ name: string; in: string; required: boolean }>; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }> };

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h2{margin-top:2rem;border-bottom:1px solid #d0d7de}details{border:1px solid #d0d7de;border-radius:6px;margin:.4rem 0;padding:.3rem .6rem}
summary{cursor:pointer}code,pre{font:13px ui-monospace,monospace}pre{background:#f6f8fa;padding:.6rem;overflow:auto;max-height:24rem}
.m{display:inline-block;min-width:4.5rem;font-weight:600}.who{color:#57606a}`;

/** The page sets its own policy: no script at all, and only this stylesheet. */
export const DOCS_SECURITY_HEADERS = {
  "Content-Security-Policy": `default-src 'none'; style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
} as const;

const who = (security: Operation["security"]) => (security.length === 0 ? "anyone" : security.map((scheme) => (Object.keys(scheme)[0] === "adminToken" ? "admin" : "the agent itself")).join(" or "));
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

function operationView(method: string, path: string, op: Operation) {
  const body = op.requestBody?.content["application/json"]?.schema;
  return html`<details id="${op.operationId}">
<summary><span class="m">${method.toUpperCase()}</span> <code>${path}</code> — ${op.summary} <span class="who">(${who(op.security)})</span></summary>
${op.parameters.length ? html`<p>Parameters: ${op.parameters.map((p, i) => html`${i ? ", " : ""}<code>${p.name}</code> (${p.in}${p.required ? ", required" : ""})`)}</p>` : ""}
${body ? html`<p>Body:</p><pre>${pretty(body)}</pre>` : ""}
<ul>${Object.entries(op.responses).map(([status, response]) => {
    const schema = response.content?.["application/json"]?.schema;
    return html`<li><strong>${status}</strong> ${response.description}${Number(status) < 300 && schema ? html`<pre>${pretty(schema)}</pre>` : ""}</li>`;
  })}</ul>
</details>`;
}

/** A plain page of the document, readable offline and under a strict CSP: every route, grouped by resource. */
export function docsPage(document: Document) {
  const byTag = new Map<string, Array<[string, string, Operation]>>();
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, op] of Object.entries(methods as Record<string, Operation>)) byTag.set(op.tags[0]!, [...(byTag.get(op.tags[0]!) ?? []), [method, path, op]]);
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>toolgate API</title><style>${raw(STYLE)}</style></head><body>
<h1>toolgate API</h1><p>${document.info.description}</p><p>The machine-readable document: <a href="openapi.json">openapi.json</a> (OpenAPI ${document.openapi}).</p>
${[...byTag].map(([tag, ops]) => html`<h2>${tag}</h2>${ops.map(([method, path, op]) => operationView(method, path, op))}`)}
</body></html>`;
}
