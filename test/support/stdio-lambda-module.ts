// server-everything (a stdio MCP server) as a Lambda module, as a module author writes it for ToolgateModule's `stdio`:
// its package installed beside the function's code (nodejs.install), its process started in the function's folder.
import { stdioLambdaHandler } from "@toolgate/module/stdio-lambda";

export const handler = stdioLambdaHandler({
  id: "everything",
  description: "The MCP reference server's every feature.",
  command: "node",
  args: ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
  cwd: process.env.LAMBDA_TASK_ROOT ?? ".",
  toolPrefix: "ev",
});
