import { cleanup } from "@toolgate/core/cleanup";
import { toolgate } from "@toolgate/core/toolgate";

export const handler = async () => {
  const report = await cleanup(toolgate().db);
  console.log(JSON.stringify({ level: "info", job: "cleanup", ...report }));
  return report;
};
