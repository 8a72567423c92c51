import { Logger } from "@aws-lambda-powertools/logger";

/**
 * One JSON line per request and per event handled (Powertools' Logger: CloudWatch on AWS, stdout on one machine).
 * Only what identifies and measures the work goes in: never a token, a secret, a body or an argument value.
 * POWERTOOLS_LOG_LEVEL sets the level (INFO by default; WARN by default with `npm start`; the tests run with WARN).
 */
export const logger = new Logger({ serviceName: "toolgate" });

/** What a request's line says: which request, how it ended and how long it took, who asked (never the token), the call it made. */
export type RequestLine = {
  requestId: string;
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  principal: "admin" | "agent" | "answerer" | "none";
  agentId?: string;
  answerTokenId?: string;
  callId?: string;
};

/** Where the apps send each request's line. */
export type RequestLog = (line: RequestLine) => void;

/** On AWS: one INFO line per request, whatever its status. */
export const lineEachRequest: RequestLog = (line) => logger.info("request", line);
