import { PLACEHOLDER_KEY } from "../dynamo/client";
import type { AccessKeyPair } from "../dynamo/client";
import type { ToolgateEvent } from "./schema";
import { TOOLGATE_EVENT_SOURCE } from "./types";
import type { ToolgateEventType } from "./types";

/**
 * Publishes toolgate's events (undefined entries are skipped, so a caller can pass what a builder found to say).
 * `publish` never rejects: a failed publish is logged and never fails the request that caused it.
 */
export interface EventPublisher {
  publish(...events: (ToolgateEvent | undefined)[]): Promise<void>;
}

export const noEvents: EventPublisher = { publish: async () => {} };

/**
 * The bus to publish to: its name, and (locally) the embedded PutEvents endpoint with the key pair it accepts
 * (`npm start`'s local key; a placeholder key without one, which that endpoint refuses).
 */
export type BusTarget = { busName: string; endpoint?: string; region?: string; credentials?: AccessKeyPair };

export type BusPublisherOptions = {
  /** Read on the first publish, so a local runner can name its endpoint once it listens. Undefined: publishing is off. */
  target: () => BusTarget | undefined;
  log?: (line: string) => void;
  /** A publish is abandoned after this long without an answer (it shares the caller's critical path with a store write). */
  requestTimeoutMs?: number;
  /** Which events to publish, decided on the first publish (read then, as the target is); all when absent. */
  publishes?: () => (type: ToolgateEventType) => boolean;
};

const MAX_ENTRIES = 10;

type Client = { send(entries: object[]): Promise<{ failed: number; codes: string[] }> };

/** What identifies an event in a log line: its type and the id of what it is about, never its detail. */
function subjectOf(event: ToolgateEvent): string {
  const detail = event.detail as Record<string, unknown>;
  const id = detail.callId ?? detail.agentId ?? detail.roleId ?? detail.groupId;
  return `${event.type} ${String(id)}`;
}

/** PutEvents to the EventBridge bus toolgate is linked to, with the AWS SDK loaded on the first publish, not at a cold start. */
export class BusPublisher implements EventPublisher {
  private client: Promise<Client | undefined> | undefined;
  private publishes: ((type: ToolgateEventType) => boolean) | undefined;
  private readonly log: (line: string) => void;

  constructor(private readonly options: BusPublisherOptions) {
    this.log = options.log ?? ((line) => console.error(line));
  }

  async publish(...maybe: (ToolgateEvent | undefined)[]): Promise<void> {
    const publishes = (this.publishes ??= this.options.publishes?.() ?? (() => true));
    const events = maybe.filter((event): event is ToolgateEvent => event !== undefined && publishes(event.type));
    if (events.length === 0) return;
    try {
      const client = await (this.client ??= this.connect());
      if (!client) return;
      const time = new Date();
      const entries = events.map((event) => ({ Source: TOOLGATE_EVENT_SOURCE, DetailType: event.type, Detail: JSON.stringify(event.detail), Time: time }));
      const batches = [];
      for (let start = 0; start < entries.length; start += MAX_ENTRIES) batches.push(entries.slice(start, start + MAX_ENTRIES));
      const results = await Promise.all(batches.map((batch) => client.send(batch)));
      const failed = results.reduce((total, result) => total + result.failed, 0);
      if (failed > 0) this.failed(events, `${failed} entries refused (${[...new Set(results.flatMap((result) => result.codes))].join(", ")})`);
    } catch (error) {
      this.failed(events, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }

  private failed(events: ToolgateEvent[], reason: string) {
    this.log(JSON.stringify({ level: "warn", message: "events: publish failed", events: events.map(subjectOf), reason }));
  }

  private async connect(): Promise<Client | undefined> {
    const target = this.options.target();
    if (!target) return undefined;
    const { EventBridgeClient, PutEventsCommand } = await import("@aws-sdk/client-eventbridge");
    const timeout = this.options.requestTimeoutMs ?? 2_000;
    const client = new EventBridgeClient({
      ...(target.region ? { region: target.region } : {}),
      ...(target.endpoint ? { endpoint: target.endpoint, region: target.region ?? "us-east-1", credentials: target.credentials ?? PLACEHOLDER_KEY } : {}),
      maxAttempts: 2,
      requestHandler: { requestTimeout: timeout, connectionTimeout: timeout, throwOnRequestTimeout: true },
    });
    return {
      send: async (entries) => {
        const sent = await client.send(new PutEventsCommand({ Entries: entries.map((entry) => ({ ...entry, EventBusName: target.busName })) }));
        const codes = (sent.Entries ?? []).flatMap((entry) => (entry.ErrorCode ? [entry.ErrorCode] : []));
        return { failed: sent.FailedEntryCount ?? 0, codes };
      },
    };
  }
}

/** Keeps what is published, for tests. */
export class RecordingPublisher implements EventPublisher {
  readonly events: ToolgateEvent[] = [];
  async publish(...events: (ToolgateEvent | undefined)[]) {
    this.events.push(...events.filter((event): event is ToolgateEvent => event !== undefined));
  }
  of<T extends ToolgateEvent["type"]>(type: T): Extract<ToolgateEvent, { type: T }>["detail"][] {
    return this.events.filter((event) => event.type === type).map((event) => event.detail) as never;
  }
}
