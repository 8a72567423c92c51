import { performance } from "node:perf_hooks";
import { runHttpExecutor } from "../../packages/core/src/executor/http";
import { percentile } from "./support";
import type { Out } from "./support";

const WARMUP = 100;
const MEASURED = 1_000;

const payload = (i: number) => ({ callId: `client_${i}`, tool: "bench_echo", arguments: { i, text: `call ${i}` }, agentId: "agt_bench", roleId: "rol_bench" });

/** What toolgate did before the pool: fetch, the whole body as text, then JSON. */
async function viaFetch(url: string, i: number) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "user-agent": "toolgate" },
    body: JSON.stringify(payload(i)),
    redirect: "error",
    signal: AbortSignal.timeout(30_000),
  });
  return JSON.parse(await response.text());
}

const viaPool = (url: string, i: number) => runHttpExecutor({ type: "http", url }, payload(i), 30_000);

/** The http executor's client (a node:http keep-alive pool) against fetch, call by call on the same executor, alternating which goes first. */
export async function benchExecutorClient(url: string, out: Out) {
  const timed = async (call: () => Promise<unknown>) => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i++) await Promise.all([viaPool(url, i), viaFetch(url, i)]);
  const pool: number[] = [];
  const fetched: number[] = [];
  for (let i = 0; i < MEASURED; i++) {
    if (i % 2 === 0) {
      pool.push(await timed(() => viaPool(url, i)));
      fetched.push(await timed(() => viaFetch(url, i)));
    } else {
      fetched.push(await timed(() => viaFetch(url, i)));
      pool.push(await timed(() => viaPool(url, i)));
    }
  }
  out("executor_client_pool_p50_ms", percentile(pool, 50).toFixed(3));
  out("executor_client_fetch_p50_ms", percentile(fetched, 50).toFixed(3));
  out("executor_client_pool_p99_ms", percentile(pool, 99).toFixed(3));
  out("executor_client_fetch_p99_ms", percentile(fetched, 99).toFixed(3));
}
