import { Logger } from "@aws-lambda-powertools/logger";

/**
 * One JSON line per request and per event handled (Powertools' Logger: CloudWatch on AWS, stdout on one machine).
 * Only what identifies and measures the work goes in: never a token, a secret, a body or an argument value.
 * POWERTOOLS_LOG_LEVEL sets the level (INFO by default; the tests run with WARN).
 */
export const logger = new Logger({ serviceName: "toolgate" });
