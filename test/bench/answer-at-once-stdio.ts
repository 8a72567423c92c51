import { createInterface } from "node:readline";
import { answerAtOnce } from "./answer-at-once";

// An MCP server over stdio that does nothing: see answerAtOnce.
for await (const line of createInterface({ input: process.stdin })) {
  const answer = answerAtOnce(JSON.parse(line));
  if (answer) process.stdout.write(`${JSON.stringify(answer)}\n`);
}
