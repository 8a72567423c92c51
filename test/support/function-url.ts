// A Lambda function behind plain HTTP, as a function URL puts it (or an HTTP API): each request becomes a payload 2.0
// event for the function's process, and its result the response.
import { ulid } from "ulid";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";

export type Invoke = (event: unknown) => Promise<unknown>;

/** An HTTP request as a payload 2.0 event (an HTTP API's, or a function URL's): its method, URL, headers and text body. */
export function payloadEvent(method: string, url: URL, headers: Record<string, string>, body?: string): APIGatewayProxyEventV2 {
  const now = new Date();
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: "000000000000",
      apiId: url.hostname.split(".")[0]!,
      domainName: url.host,
      domainPrefix: url.hostname.split(".")[0]!,
      http: { method, path: url.pathname, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: headers["user-agent"] ?? "" },
      requestId: ulid(),
      routeKey: "$default",
      stage: "$default",
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body ? { body } : {}),
    isBase64Encoded: false,
  };
}

/** A request as the function URL's event: served over plain http here, which X-Forwarded-Proto says, as AWS sets it. */
export async function functionUrlEvent(request: Request): Promise<APIGatewayProxyEventV2> {
  const url = new URL(request.url);
  const body = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
  return payloadEvent(request.method, url, { ...Object.fromEntries(request.headers), "x-forwarded-proto": url.protocol.slice(0, -1) }, body);
}

/** A fetch handler that invokes the function with each request as its event and answers what the function returned. */
export const viaFunctionUrl =
  (invoke: Invoke) =>
  async (request: Request): Promise<Response> => {
    const result = (await invoke(await functionUrlEvent(request))) as APIGatewayProxyStructuredResultV2;
    const body = result.isBase64Encoded ? Buffer.from(result.body ?? "", "base64") : (result.body ?? "");
    const status = result.statusCode ?? 200;
    const headers = Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)] as [string, string]);
    return new Response(status === 204 || status === 304 ? null : body, { status, headers });
  };
