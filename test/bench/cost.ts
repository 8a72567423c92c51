import { FUNCTION_DEFAULTS } from "../../infra/defaults";

// AWS on-demand prices, us-east-1.
// DynamoDB on-demand, standard table class: https://aws.amazon.com/dynamodb/pricing/on-demand/
export const DYNAMODB_DOLLARS_PER_MILLION_WRITE_UNITS = 0.625;
export const DYNAMODB_DOLLARS_PER_MILLION_READ_UNITS = 0.125;
// Lambda: https://aws.amazon.com/lambda/pricing/
export const LAMBDA_DOLLARS_PER_MILLION_REQUESTS = 0.2;
export const LAMBDA_DOLLARS_PER_GB_SECOND = { x86_64: 0.0000166667, arm64: 0.0000133334 } as const;
export const LAMBDA_BILLING_GRANULARITY_MS = 1;
const LAMBDA_MB_PER_GB = 1024;
// API Gateway HTTP API, first 300 million requests a month: https://aws.amazon.com/api-gateway/pricing/
export const HTTP_API_DOLLARS_PER_MILLION_REQUESTS = 1.0;
// EventBridge custom events, $1.00 per million (each 64 KB chunk of an entry): https://aws.amazon.com/eventbridge/pricing/
export const EVENTBRIDGE_DOLLARS_PER_MILLION_EVENTS = 1.0;
// Bedrock AgentCore Gateway, $0.005 per 1,000 tool invocations: https://aws.amazon.com/bedrock/agentcore/pricing/
export const AGENTCORE_GATEWAY_DOLLARS_PER_THOUSAND_INVOCATIONS = 0.005;
export const PEER_DOLLARS_PER_MILLION_CALLS = AGENTCORE_GATEWAY_DOLLARS_PER_THOUSAND_INVOCATIONS * 1_000;

/** The functions' memory, as infra/defaults.ts configures every function. */
export const apiFunctionMemoryMb = () => Number(FUNCTION_DEFAULTS.memory.replace(/\s*MB$/, ""));

export type Dollars = { dynamodb: number; lambda: number; api: number; events: number; total: number };

/**
 * Dollars per million requests through HTTP API to a Lambda function: DynamoDB units per request, and the Lambda
 * duration of each request (its time inside the app, billed rounded up to the millisecond), averaged, and the events
 * it publishes.
 */
export function dollarsPerMillion(usage: { writeUnits: number; readUnits: number; appMs: readonly number[]; events: number }): Dollars {
  const dynamodb = usage.writeUnits * DYNAMODB_DOLLARS_PER_MILLION_WRITE_UNITS + usage.readUnits * DYNAMODB_DOLLARS_PER_MILLION_READ_UNITS;
  const billedMs = usage.appMs.map((ms) => Math.ceil(ms / LAMBDA_BILLING_GRANULARITY_MS) * LAMBDA_BILLING_GRANULARITY_MS);
  const meanSeconds = billedMs.reduce((sum, ms) => sum + ms, 0) / Math.max(1, billedMs.length) / 1000;
  const gbSeconds = (apiFunctionMemoryMb() / LAMBDA_MB_PER_GB) * meanSeconds;
  const lambda = LAMBDA_DOLLARS_PER_MILLION_REQUESTS + gbSeconds * LAMBDA_DOLLARS_PER_GB_SECOND[FUNCTION_DEFAULTS.architecture] * 1_000_000;
  const api = HTTP_API_DOLLARS_PER_MILLION_REQUESTS;
  const events = usage.events * EVENTBRIDGE_DOLLARS_PER_MILLION_EVENTS;
  return { dynamodb, lambda, api, events, total: dynamodb + lambda + api + events };
}

export const dollars = (value: number) => value.toFixed(2);
