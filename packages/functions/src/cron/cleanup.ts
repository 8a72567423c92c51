import { cleanupLinkedStore } from "@toolgate/core/cleanup";

export const handler = async () => {
  const report = await cleanupLinkedStore();
  console.log(JSON.stringify({ level: "info", job: "cleanup", ...report }));
  return report;
};
