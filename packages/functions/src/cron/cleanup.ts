import { cleanupLinkedStore } from "@toolgate/core/cleanup";
import { logger } from "../log";

export const handler = async () => {
  const report = await cleanupLinkedStore();
  logger.info("job", { job: "cleanup", ...report });
  return report;
};
