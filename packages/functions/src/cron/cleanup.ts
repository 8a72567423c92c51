import { toolgate } from "@toolgate/core/toolgate";

export const handler = async () => {
  const report = await toolgate().cleanup();
  console.log(JSON.stringify({ level: "info", job: "cleanup", ...report }));
  return report;
};
