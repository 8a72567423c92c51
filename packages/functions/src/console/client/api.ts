import { setMessage } from "./dom";
import { endSession, storedToken } from "./session";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly data: Record<string, unknown> | undefined;
  constructor(status: number, data: unknown) {
    const body = data !== null && typeof data === "object" ? (data as Record<string, unknown>) : undefined;
    super(typeof body?.message === "string" && body.message ? body.message : `toolgate answered with status ${status}.`);
    this.status = status;
    this.code = typeof body?.error === "string" ? body.error : undefined;
    this.data = body;
  }
}

/** A request cancelled because a newer one fills the same view: nothing to show, nothing to report. */
export class SupersededError extends Error {
  constructor() {
    super("A newer request replaced this one.");
  }
}

type Options = { token?: string | null; body?: unknown; ifMatch?: number; signal?: AbortSignal };

/** A JSON request to toolgate's API, relative to where the console is mounted. */
export async function api<T = any>(method: string, path: string, options: Options = {}): Promise<T> {
  const { token = storedToken(), body: payload, ifMatch, signal } = options;
  const headers: Record<string, string> = { Accept: "application/json", Authorization: `Bearer ${token ?? ""}` };
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  if (ifMatch !== undefined) headers["If-Match"] = `"${ifMatch}"`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(new URL(path, new URL(document.body.dataset.root || "./", location.href)), {
      method,
      headers,
      body: payload === undefined ? undefined : JSON.stringify(payload),
      cache: "no-store",
      credentials: "omit",
      signal,
    });
    text = await response.text();
  } catch {
    if (signal?.aborted) throw new SupersededError();
    throw new ApiError(0, { message: "Could not reach toolgate. Check that it is running, then try again." });
  }
  if (signal?.aborted) throw new SupersededError();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data as T;
}

/**
 * For a view that overlapping requests fill (a filter changed while the page loads, a periodic refresh beside a
 * click): each request cancels the one before it, so an answer that arrives late never replaces a newer one.
 */
export function newestOnly() {
  let current: AbortController | undefined;
  return <T = any>(method: string, path: string, options: Omit<Options, "signal"> = {}): Promise<T> => {
    current?.abort();
    current = new AbortController();
    return api<T>(method, path, { ...options, signal: current.signal });
  };
}

/** A path with its query string, leaving out empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined>) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export const segment = (value: string) => encodeURIComponent(value);

/** Shows a failed request's message; a token no longer accepted ends the session. */
export function failed(target: HTMLElement, error: unknown) {
  if (error instanceof SupersededError) return;
  if (error instanceof ApiError && error.status === 401) {
    endSession(`Your sign-in is no longer accepted (${error.message}) Sign in again.`);
    return;
  }
  setMessage(target, error instanceof Error ? error.message : String(error), "error");
}
