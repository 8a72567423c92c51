// `npm run bench`: the hot path, measured. Not a test: it prints `name=value` lines and asserts no time.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { serve } from "@hono/node-server";
import type { ServerType } from "@hono/node-server";
import { Toolgate } from "@toolgate/core/toolgate";
import { BusPublisher } from "@toolgate/core/events";
import type { EventPublisher, ToolgateEventType } from "@toolgate/core/events";
import { publishedEvents } from "../../packages/core/src/environment";
import { eventBridgeApp } from "@toolgate/local/eventbridge";
import { generateAccessKeyPair } from "@toolgate/local/secrets";
import { putGroupItem, writeCatalog } from "../../packages/core/src/dynamo/catalog";
import { Group } from "@toolgate/core/group";
import { groupsApp } from "@toolgate/functions/api/groups";
import { rolesApp } from "@toolgate/functions/api/roles";
import { executionApp } from "@toolgate/functions/api/execution";
import { ROUTES } from "@toolgate/functions/routes";
import { startDynamoLocal } from "@toolgate/local/dynamo-local";
import type { DynamoLocal } from "@toolgate/local/dynamo-local";
import { ensureTable } from "@toolgate/local/local-table";
import { routedFetch } from "@toolgate/local/router";
import { collectGarbage, httpClient, inShuffledRounds, mb, mean, ms, percentile, RoundTrips, startBenchExecutor, timeDynamo } from "./support";
import type { HttpClient } from "./support";
import { estimateCall } from "./aws-units";
import { FUNCTION_DEFAULTS } from "../../infra/defaults";
import { benchBundles } from "./bundles";
import { benchExecutorClient } from "./executor-client";
import { benchMcp } from "./mcp";
import { benchMcpEras } from "./mcp-eras";
import { benchResources } from "./resources";
import { benchStdio } from "./stdio";
import { benchDynamoSpacing } from "./dynamo-spacing";
import { benchTokens } from "./tokens";
import { benchSearch } from "./search";
import { apiFunctionMemoryMb, dollars, dollarsPerMillion, PEER_DOLLARS_PER_MILLION_CALLS } from "./cost";
import type { Dollars } from "./cost";
import { capacityOf, DynamoRecorder } from "./dynamo-record";
import type { DynamoRequest } from "./dynamo-record";
import { benchDynamoClient } from "./dynamo-client";
import { DynamoFloor } from "./floor";
import { coldLoad } from "./cold-load";
import { ItemReader } from "./item-reader";
import { benchPolicyDecisions, benchPolicyInputs, policyToolNames } from "./policies";
import { benchLayeredVisibleTools } from "./layers";
import { benchSdk } from "./sdk";
import { benchCommandFacts, benchHostileLines, benchRunCommandOverhead } from "./commands";
import { measureBeside, overheadVsFloor } from "./beside";

const WARMUP_CALLS = 200;
const MEASURED_CALLS = 1_000;
const VISIBLE_WARMUP = 20;
const VISIBLE_MEASURED = 200;
const POLICY_CALLS = 500;
const BIG_GROUPS = 1_000;
const TOOLS_PER_GROUP = 20;
const BIG_WARMUP = 5;
const BIG_MEASURED = 50;
const BATCH = 99; // TransactWriteItems takes 100 items: the version bump and 99 groups

const ADMIN_TOKEN = "bench-admin-token-0123456789";
const SIGNING_KEY = "bench-signing-key-0123456789-0123456789";
const TABLE = "toolgate_bench";

const out = (name: string, value: string | number) => console.log(`${name}=${value}`);
const note = (text: string) => console.error(`# ${text}`);

/** Counts the events toolgate publishes (those its deployment publishes: no per-call event without a subscriber), to price them. */
class CountingPublisher implements EventPublisher {
  count = 0;
  constructor(
    private readonly inner: EventPublisher,
    private readonly publishes: (type: ToolgateEventType) => boolean,
  ) {}
  publish(...events: Parameters<EventPublisher["publish"]>) {
    this.count += events.filter((event) => event !== undefined && this.publishes(event.type)).length;
    return this.inner.publish(...events);
  }
}

/** How many events one more run of a request publishes. */
async function eventsOf(events: CountingPublisher, request: () => Promise<unknown>) {
  const before = events.count;
  await request();
  return events.count - before;
}

type Stack = { url: string; toolgate: Toolgate; roundTrips: RoundTrips; recorder: DynamoRecorder; serverMs: number[] };

async function main(cleanups: Array<() => Promise<unknown> | unknown>) {
  const benchStarted = performance.now();
  console.log(
    `# toolgate bench: node ${process.version}, ${cpus().length} cpu(s), DynamoDB Local in memory, ` +
      `${MEASURED_CALLS} guarded + ${MEASURED_CALLS} direct calls + ${MEASURED_CALLS} DynamoDB floor replays interleaved ` +
        `after ${WARMUP_CALLS} warm-up each`,
  );

  // --- the stack: DynamoDB Local, a Toolgate counting round trips, the three apps behind the router ---
  const dynamo: DynamoLocal = await startDynamoLocal({ log: () => {} });
  cleanups.push(() => dynamo.stop());
  const roundTrips = new RoundTrips();
  // toolgate's events go to a local PutEvents endpoint of their own, as to EventBridge on AWS; as deployed with no
  // rule, no per-call event is published (the figures with one subscriber of call.settled are printed beside).
  const busKeys = generateAccessKeyPair();
  const bus = serve({ fetch: eventBridgeApp({ rules: [], access: { credentials: busKeys } }).app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((ready) => (bus.listening ? ready() : bus.once("listening", () => ready())));
  cleanups.push(() => new Promise<void>((done) => bus.close(() => done())));
  const busEndpoint = `http://127.0.0.1:${(bus.address() as { port: number }).port}/eventbridge`;
  // TOOLGATE_BENCH_EVENTS=off: no bus, to see what publishing costs.
  const publishes = () => publishedEvents({ TOOLGATE_CALL_EVENT_TYPES: "" });
  const events = new CountingPublisher(
    new BusPublisher({ target: () => (process.env.TOOLGATE_BENCH_EVENTS === "off" ? undefined : { busName: "bench", endpoint: busEndpoint, credentials: busKeys }), publishes }),
    publishes(),
  );
  const toolgate = new Toolgate({
    events,
    table: TABLE,
    endpoint: dynamo.endpoint,
    adminToken: ADMIN_TOKEN,
    signingKey: SIGNING_KEY,
    onRoundTrip: roundTrips.record,
  });
  cleanups.push(() => toolgate.db.client.destroy());
  const dynamoTime = timeDynamo(toolgate.db.client);
  // Asks every request for its consumed capacity, and records the requests of one call at a time.
  const recorder = new DynamoRecorder(toolgate.db.client);
  await ensureTable(toolgate.db.client, TABLE);
  await toolgate.ready();
  const serverMs: number[] = [];
  const stack: Stack = { url: await serveApps(toolgate, cleanups, serverMs), toolgate, roundTrips, recorder, serverMs };
  const floor = await DynamoFloor.open(dynamo.endpoint, TABLE);
  cleanups.push(() => floor.close());
  const reader = new ItemReader(floor.client, floor.shape);

  const executor = await startBenchExecutor();
  cleanups.push(() => executor.close());
  const api = httpClient(stack.url);
  const direct = httpClient(executor.url);
  cleanups.push(() => api.close(), () => direct.close());
  note(`stack up in ${(performance.now() - benchStarted).toFixed(0)} ms (toolgate ${stack.url}, executor ${executor.url})`);

  // --- setup through the HTTP API: a group bound to the executor, a role, an agent ---
  const admin = { token: ADMIN_TOKEN };
  await api.json("PUT", "/groups/bench_http", 201, {
    ...admin,
    body: {
      description: "Bench tools run by a local HTTP executor.",
      executor: { type: "http", url: `${executor.url}/run` },
      tools: [
        {
          type: "function",
          function: {
            name: "bench_echo",
            description: "Echoes its input.",
            parameters: { type: "object", properties: { i: { type: "integer" }, text: { type: "string" } }, required: ["i"] },
          },
        },
      ],
    },
  });
  const role = await api.json("POST", "/roles", 201, { ...admin, body: { name: "bench", rolePrompt: "Bench role.", toolGroups: ["bench_http"] } });
  const { agent, token } = await api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-agent", department: "bench" } });

  // --- guarded vs direct, interleaved call by call, arguments varied so the doom loop never triggers ---
  let sequence = 0;
  const guarded = async (tool = "bench_echo") => {
    const i = sequence++;
    const { ms: elapsed, response } = await api.timed("POST", `/agents/${agent.id}/calls`, 200, {
      token,
      body: { tool, arguments: { i, text: `call ${i}` } },
    });
    const body = JSON.parse(response.text);
    if (body.status !== "completed") throw new Error(`guarded call ${i} did not complete: ${response.text}`);
    return elapsed;
  };
  const directCall = async () => {
    const i = sequence++;
    const { ms: elapsed } = await direct.timed("POST", "/run", 200, {
      body: { callId: `direct_${i}`, tool: "bench_echo", arguments: { i, text: `call ${i}` }, agentId: agent.id, roleId: role.id },
    });
    return elapsed;
  };

  // The DynamoDB requests of the last guarded call, for the floor to replay.
  let lastCall: DynamoRequest[] = [];
  const recordedGuarded = async (tool?: string) => {
    recorder.begin();
    try {
      return await guarded(tool);
    } finally {
      lastCall = recorder.end();
    }
  };

  for (let n = 0; n < WARMUP_CALLS; n++) {
    await recordedGuarded();
    await floor.replay(lastCall);
    await directCall();
  }

  const guardedMs: number[] = [];
  const directMs: number[] = [];
  const floorMs: number[] = [];
  const perCallTrips: number[] = [];
  const dynamoMs: number[] = [];
  const perCallCapacity: number[] = [];
  const guardedAppMs: number[] = [];
  const before = roundTrips.snapshot();
  const totalBefore = roundTrips.total;
  const executorBefore = executor.received();
  const measureStarted = performance.now();
  const measureGuarded = async () => {
    const trips = roundTrips.total;
    const inDynamo = dynamoTime.totalMs;
    const inApp = serverMs.length;
    guardedMs.push(await recordedGuarded());
    perCallTrips.push(roundTrips.total - trips);
    dynamoMs.push(dynamoTime.totalMs - inDynamo);
    perCallCapacity.push(capacityOf(lastCall));
    guardedAppMs.push(...serverMs.slice(inApp));
  };
  const measureFloor = async () => void floorMs.push(await floor.replay(lastCall));
  const measureDirect = async () => void directMs.push(await directCall());
  // The floor replays the last guarded call, which may be the one before this round's.
  await inShuffledRounds([measureGuarded, measureFloor, measureDirect], MEASURED_CALLS, (measure) => measure());
  const measureMs = performance.now() - measureStarted;
  const trips = roundTrips.total - totalBefore;
  if (executor.received() - executorBefore !== 2 * MEASURED_CALLS)
    throw new Error(`the executor received ${executor.received() - executorBefore} requests, expected ${2 * MEASURED_CALLS}`);

  out("guarded_calls", MEASURED_CALLS);
  out("direct_calls", MEASURED_CALLS);
  out("dynamodb_round_trips_per_call", (trips / MEASURED_CALLS).toFixed(2));
  out("dynamodb_round_trip_operations", roundTrips.breakdownSince(before, MEASURED_CALLS));
  out("dynamodb_round_trips_per_call_min", Math.min(...perCallTrips));
  out("dynamodb_round_trips_per_call_max", Math.max(...perCallTrips));
  out("guarded_call_p50_ms", ms(percentile(guardedMs, 50)));
  out("guarded_call_p99_ms", ms(percentile(guardedMs, 99)));
  out("direct_call_p50_ms", ms(percentile(directMs, 50)));
  out("direct_call_p99_ms", ms(percentile(directMs, 99)));
  out("guard_overhead_p50_ms", ms(percentile(guardedMs, 50) - percentile(directMs, 50)));
  out("guard_overhead_p99_ms", ms(percentile(guardedMs, 99) - percentile(directMs, 99)));
  out("guarded_call_dynamodb_p50_ms", ms(percentile(dynamoMs, 50)));
  out("guarded_call_dynamodb_p99_ms", ms(percentile(dynamoMs, 99)));
  out("guarded_call_outside_dynamodb_p50_ms", ms(percentile(guardedMs.map((value, n) => value - dynamoMs[n]!), 50)));
  out("dynamodb_floor_p50_ms", ms(percentile(floorMs, 50)));
  out("dynamodb_floor_p99_ms", ms(percentile(floorMs, 99)));
  out("guard_overhead_vs_floor", ((percentile(guardedMs, 50) - percentile(directMs, 50)) / percentile(floorMs, 50)).toFixed(2));
  out("dynamodb_floor_operations", floor.operations);
  // The same ratio inside the app, without the client's HTTP hop to toolgate (which the floor does not make).
  const inAppOverhead = percentile(guardedAppMs, 50) - percentile(directMs, 50);
  out("guard_overhead_in_app_p50_ms", ms(inAppOverhead));
  out("guard_overhead_in_app_vs_floor", (inAppOverhead / percentile(floorMs, 50)).toFixed(2));
  note(
    `floor: each guarded call's DynamoDB requests replayed right after it with the SDK's document client on its own client (default settings, the bench's instruments as on toolgate's) ` +
      `("+" = concurrent), writes moved to FLOOR# partitions (${await floor.removeItems()} floor items removed after)`,
  );
  out("dynamodb_capacity_units_per_call", mean(perCallCapacity).toFixed(2));
  // With no rule, a call publishes nothing; with one subscriber of call.settled, the table's stream publishes it once per call.
  const callUnits = { ...(await estimateCall(reader, recorder, guarded)), events: await eventsOf(events, guarded) };
  out("events_per_call", callUnits.events);
  out("events_per_call_one_subscriber", callUnits.events + 1);
  out("dynamodb_write_units_per_call_aws", callUnits.writeUnits);
  out("dynamodb_read_units_per_call_aws", callUnits.readUnits);
  note(
    `AWS units of a warm guarded call (bytes:units; a write bills the larger of its item before, as stored just before the call, ` +
      `and after, as written or for an update as stored after the call; index writes at 1 per KB): ${callUnits.breakdown}`,
  );
  note(`measured calls took ${(measureMs / 1000).toFixed(1)} s`);

  // --- the same calls with 200 argument policies stored over 40 tools and four layers, 4 of them applying to bench_echo ---
  await benchPolicyDecisions(out);
  // Side by side in one phase: calls of bench_echo, which 4 of the 200 stored policies apply to, and of bench_plain,
  // which none names, each with its own floor.
  const policyTools = policyToolNames("bench_echo");
  const toolOf = (name: string) => ({ type: "function", function: { name, description: "Echoes its input.", parameters: { type: "object", properties: { i: { type: "integer" }, text: { type: "string" } } } } });
  await api.json("PUT", "/groups/bench_policies", 201, {
    ...admin,
    body: { description: "More tools for the bench's policies to name.", executor: { type: "http", url: `${executor.url}/run` }, tools: [...policyTools.slice(1), "bench_plain"].map(toolOf) },
  });
  await api.json("PATCH", `/roles/${role.id}`, 200, { ...admin, body: { toolGroups: ["bench_http", "bench_policies"] } });
  const other = await api.json("POST", "/agents", 201, { ...admin, body: { roleId: role.id, name: "bench-other-agent", department: "bench" } });
  const benchPolicies = benchPolicyInputs(policyTools, { agentId: agent.id, roleId: role.id, roleName: role.name, department: "bench", otherAgentId: other.agent.id });
  for (const { id, input } of benchPolicies) await api.json("PUT", `/policies/${id}`, 201, { ...admin, body: input });
  const inApp = { policed: [] as number[], plain: [] as number[] };
  const callInApp = (tool: string, into: number[]) => async () => {
    const before = serverMs.length;
    const elapsed = await recordedGuarded(tool);
    into.push(...serverMs.slice(before));
    return { ms: elapsed, requests: lastCall };
  };
  // Cedar answers between the admission's first requests and the call's start: the floor still replays them together.
  const phase = await measureBeside(callInApp("bench_echo", inApp.policed), callInApp("bench_plain", inApp.plain), floor, directCall, WARMUP_CALLS, POLICY_CALLS);
  out("guard_overhead_vs_floor_no_policy_applies", overheadVsFloor(phase.second, phase.secondFloor, phase.direct).toFixed(2));
  out("guard_overhead_vs_floor_with_policies", overheadVsFloor(phase.first, phase.firstFloor, phase.direct).toFixed(2));
  out("guard_with_policies_minus_without_p50_ms", ms(percentile(phase.first, 50) - percentile(phase.second, 50)));
  out("guard_with_policies_minus_without_in_app_p50_ms", ms(percentile(inApp.policed, 50) - percentile(inApp.plain, 50)));
  note(`policy phase p50s (ms): guarded ${ms(percentile(phase.first, 50))} / ${ms(percentile(phase.second, 50))}, floors ${ms(percentile(phase.firstFloor, 50))} / ${ms(percentile(phase.secondFloor, 50))}, direct ${ms(percentile(phase.direct, 50))} (with policies / without); floor with policies: ${phase.firstFloorOperations}`);
  for (const { id } of benchPolicies) await api.json("DELETE", `/policies/${id}`, 204, admin);
  await api.json("PATCH", `/roles/${role.id}`, 200, { ...admin, body: { toolGroups: ["bench_http"] } });
  await api.json("DELETE", "/groups/bench_policies", 204, admin);

  // --- command lines: their facts, the guard on an ordinary run_command line, /health under the costliest lines ---
  benchCommandFacts(out);
  const commandsSetup = { api, url: stack.url, admin, executorUrl: executor.url, floor, recorder, direct: directCall };
  const { roleId: commandsRole } = await benchRunCommandOverhead(commandsSetup, out, note);
  await benchHostileLines(commandsSetup, commandsRole, out, note);

  await benchExecutorClient(`${executor.url}/run`, out);
  await benchMcp({
    toolgateUrl: stack.url,
    agentToken: token,
    api,
    adminToken: ADMIN_TOKEN,
    executorUrl: `${executor.url}/run`,
    direct: () => directCall(),
    rest: () => guarded(),
    recorder,
    floor,
    out,
    note,
  });
  await benchMcpEras({ toolgateUrl: stack.url, api, adminToken: ADMIN_TOKEN, executorUrl: `${executor.url}/run`, recorder, floor, out, note });
  await benchResources({ toolgateUrl: stack.url, api, adminToken: ADMIN_TOKEN, recorder, floor, out, note });
  await benchStdio({ toolgateUrl: stack.url, api, adminToken: ADMIN_TOKEN, recorder, floor, out, note });

  await benchDynamoSpacing(floor, out, note);
  await benchDynamoClient(out, note);
  await benchLayeredVisibleTools(api, admin, `${executor.url}/run`, out, note);
  await benchSdk(api, admin, stack.url, `${executor.url}/run`, out, note);

  // --- visible tools for the bench agent, warm ---
  const visible = await measureVisibleTools(api, stack, agent.id, token, VISIBLE_WARMUP, VISIBLE_MEASURED);
  out("visible_tools_p50_ms", ms(visible.p50));
  out("visible_tools_p99_ms", ms(visible.p99));
  out("visible_tools_in_app_p50_ms", ms(visible.serverP50));
  out("visible_tools_count", visible.count);
  out("visible_tools_round_trips_per_request", visible.tripsPerRequest.toFixed(2));
  out("dynamodb_capacity_units_per_visible_tools_read", visible.capacityPerRequest.toFixed(2));
  const readTools = () => api.timed("GET", `/agents/${agent.id}/tools`, 200, { token });
  const readUnits = { ...(await estimateCall(reader, recorder, readTools)), events: await eventsOf(events, readTools) };
  out("dynamodb_write_units_per_visible_tools_read_aws", readUnits.writeUnits);
  out("dynamodb_read_units_per_visible_tools_read_aws", readUnits.readUnits);
  note(`AWS units of a warm visible-tools read: ${readUnits.breakdown}`);
  const printDollars = (name: string, cost: Dollars) => {
    out(name, dollars(cost.total));
    for (const part of ["dynamodb", "lambda", "api", "events"] as const) out(`${name}_${part}`, dollars(cost[part]));
  };
  printDollars("dollars_per_million_calls", dollarsPerMillion({ ...callUnits, appMs: guardedAppMs }));
  printDollars("dollars_per_million_calls_one_subscriber", dollarsPerMillion({ ...callUnits, events: callUnits.events + 1, appMs: guardedAppMs }));
  printDollars("dollars_per_million_visible_tools_reads", dollarsPerMillion({ ...readUnits, appMs: visible.appMs }));
  out("peer_dollars_per_million_calls", dollars(PEER_DOLLARS_PER_MILLION_CALLS));
  note(
    `dollars: AWS on-demand, us-east-1; DynamoDB from the _aws units; EventBridge $1 per million events published (events_per_call); Lambda ${apiFunctionMemoryMb()} MB ${FUNCTION_DEFAULTS.architecture} billed for the time in the app rounded up to 1 ms ` +
      `(mean ${mean(guardedAppMs.map(Math.ceil)).toFixed(1)} ms per call, ${mean(visible.appMs.map(Math.ceil)).toFixed(1)} ms per read, ` +
      `DynamoDB Local's latency standing in for DynamoDB's); peer: AgentCore Gateway at $0.005 per 1,000 tool invocations`,
  );

  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  out("heap_used_mb", mb(heapBefore));

  // --- 1,000 groups x 20 tools, written with the storage layer in catalog transactions ---
  const allRole = await api.json("POST", "/roles", 201, { ...admin, body: { name: "bench-all", rolePrompt: "Every group.", toolGroups: null } });
  const all = await api.json("POST", "/agents", 201, { ...admin, body: { roleId: allRole.id, name: "bench-all-agent" } });

  const setupStarted = performance.now();
  const now = toolgate.now();
  const groups: Group[] = [];
  for (let g = 0; g < BIG_GROUPS; g++) groups.push(Group.parse(bigGroup(g, now)));
  const parsedMs = performance.now() - setupStarted;
  let version = (await toolgate.catalog.snapshot()).version;
  for (let start = 0; start < groups.length; start += BATCH)
  {
    const written = await writeCatalog(toolgate.db, version, groups.slice(start, start + BATCH).map((group) => putGroupItem(toolgate.db, group)));
    if (written.kind !== "ok") throw new Error(`the catalog write was ${written.kind}`);
    version = written.version;
  }
  const setupMs = performance.now() - setupStarted;
  out("setup_1000_groups_ms", setupMs.toFixed(0));
  note(`1,000 groups: built and validated in ${parsedMs.toFixed(0)} ms, written in ${Math.ceil(BIG_GROUPS / BATCH)} catalog transactions`);

  // The first request finds the catalog version moved on and loads it (one Query, paged): the cold cost.
  const tripsBeforeCold = roundTrips.snapshot();
  const dynamoBeforeCold = dynamoTime.totalMs;
  const cold = await api.timed("GET", `/agents/${all.agent.id}/tools`, 200, { token: all.token });
  out("visible_tools_first_ms_1000_groups", ms(cold.ms));
  out("visible_tools_first_dynamodb_ms_1000_groups", ms(dynamoTime.totalMs - dynamoBeforeCold));
  out("visible_tools_first_operations_1000_groups", roundTrips.breakdownSince(tripsBeforeCold, 1));

  // A cold process (a new Lambda instance) answering one agent's first request: it reads its role's groups, or all.
  const role3 = await api.json("POST", "/roles", 201, {
    ...admin,
    body: { name: "bench-three", rolePrompt: "Three groups.", toolGroups: [groups[10]!.id, groups[500]!.id, groups[990]!.id] },
  });
  const three = await api.json("POST", "/agents", 201, { ...admin, body: { roleId: role3.id, name: "bench-three-agent" } });
  const coldOptions = { table: TABLE, endpoint: dynamo.endpoint, adminToken: ADMIN_TOKEN, signingKey: SIGNING_KEY };
  const coldThree = await coldLoad(coldOptions, reader, { id: three.agent.id, token: three.token });
  const coldAll = await coldLoad(coldOptions, reader, { id: all.agent.id, token: all.token });
  out("cold_load_read_units_1000_groups_role_of_3", coldThree.readUnits);
  out("cold_load_read_units_1000_groups_all", coldAll.readUnits);
  out("cold_load_share_role_of_3", (coldThree.readUnits / coldAll.readUnits).toFixed(3));
  out("cold_load_ms_1000_groups_role_of_3", ms(coldThree.ms));
  out("cold_load_ms_1000_groups_all", ms(coldAll.ms));
  note(
    `cold load: a new process's start and first GET /agents/:id/tools, read units from the items' sizes (strongly consistent); ` +
      `role of 3: ${coldThree.tools} tools, ${coldThree.operations}; every group: ${coldAll.tools} tools, ${coldAll.operations.split(" ").length} requests`,
  );

  const big = await measureVisibleTools(api, stack, all.agent.id, all.token, BIG_WARMUP, BIG_MEASURED);
  out("visible_tools_p50_ms_1000_groups", ms(big.p50));
  out("visible_tools_p99_ms_1000_groups", ms(big.p99));
  out("visible_tools_in_app_p50_ms_1000_groups", ms(big.serverP50));
  out("visible_tools_count_1000_groups", big.count);
  out("visible_tools_response_kb_1000_groups", (big.bytes / 1024).toFixed(0));
  out("visible_tools_round_trips_per_request_1000_groups", big.tripsPerRequest.toFixed(2));

  collectGarbage();
  const memory = process.memoryUsage();
  out("heap_used_mb_1000_groups", mb(memory.heapUsed));
  out("rss_mb", mb(memory.rss));
  // Last of the in-process figures: the search bench keeps the event loop busy for seconds, which would let the
  // kept-alive sockets of the stack above time out under the next request.
  await benchTokens(out, note);
  benchSearch(out, note);
  await benchBundles({ out, note });
  note(`bench finished in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s`);
}

async function measureVisibleTools(api: HttpClient, stack: Stack, agentId: string, token: string, warmup: number, measured: number) {
  const path = `/agents/${agentId}/tools`;
  for (let n = 0; n < warmup; n++) await api.timed("GET", path, 200, { token });
  const samples: number[] = [];
  stack.serverMs.length = 0;
  const tripsBefore = stack.roundTrips.total;
  const capacityBefore = stack.recorder.capacityUnits;
  let last: { text: string; bytes: number } | undefined;
  for (let n = 0; n < measured; n++) {
    const { ms: elapsed, response } = await api.timed("GET", path, 200, { token });
    samples.push(elapsed);
    last = response;
  }
  const tripsPerRequest = (stack.roundTrips.total - tripsBefore) / measured;
  const body = JSON.parse(last!.text);
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    serverP50: percentile(stack.serverMs, 50),
    count: body.tools.length as number,
    bytes: last!.bytes,
    tripsPerRequest,
    capacityPerRequest: (stack.recorder.capacityUnits - capacityBefore) / measured,
    appMs: [...stack.serverMs],
  };
}

/** One group of the big catalog: 20 tools with realistic descriptions and small JSON Schemas. */
function bigGroup(index: number, now: string) {
  const id = `bench_group_${String(index).padStart(4, "0")}`;
  return {
    id,
    description: `Benchmark group ${index}: twenty tools of a typical integration (search, read, write).`,
    executor: { type: "http", url: "http://127.0.0.1:9/run" },
    reserved: false,
    source: "api",
    registeredAt: now,
    updatedAt: now,
    tools: Array.from({ length: TOOLS_PER_GROUP }, (_, t) => ({
      type: "function",
      function: {
        name: `${id}_tool_${String(t).padStart(2, "0")}`,
        description: `Tool ${t} of group ${index}: looks up records by query and returns at most limit results as JSON.`,
        parameters: {
          type: "object",
          properties: {
            query: { type: "string", description: "What to look for." },
            limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
          },
          required: ["query"],
        },
      },
      "x-toolgate": { category: "bench", tags: ["bench"] },
    })),
  };
}

/** The three API functions behind one server, routed as API Gateway routes them (as packages/local/src/stack.ts does). */
async function serveApps(toolgate: Toolgate, cleanups: Array<() => Promise<unknown> | unknown>, serverMs: number[]): Promise<string> {
  const routed = routedFetch([
    { routes: ROUTES.groups, app: groupsApp(() => toolgate) },
    { routes: ROUTES.roles, app: rolesApp(() => toolgate) },
    { routes: ROUTES.execution, app: executionApp(() => toolgate) },
  ]);
  // Time inside the app (handler and body serialisation), without the socket write: a diagnostic split only.
  const fetch = async (request: Request) => {
    const started = performance.now();
    const response = await routed(request);
    serverMs.push(performance.now() - started);
    return response;
  };
  const server = await new Promise<ServerType>((ready, fail) => {
    const started = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => ready(started));
    started.once("error", fail);
  });
  cleanups.push(
    () =>
      new Promise<void>((done) => {
        server.close(() => done());
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  );
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the server has no address");
  return `http://127.0.0.1:${address.port}`;
}

async function run() {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          console.error(`# cleanup failed: ${String(error)}`);
        }
      }
    })());
  const interrupted = (signal: NodeJS.Signals) => {
    console.error(`# ${signal}: stopping`);
    void stop().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  let failed = false;
  try {
    await main(cleanups);
  } catch (error) {
    failed = true;
    console.error(`# bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await stop();
  }
  process.exit(failed ? 1 : 0);
}

await run();
