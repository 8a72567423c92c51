// A one-tool module on the SDK as a Lambda function's handler, as a module author writes it for ToolgateModule
// (@toolgate/module/sst): test/infra/lambda.test.ts builds it as `sst deploy` does and runs it like Lambda.
import * as z from "zod";
import { defineModule, defineTool } from "@toolgate/module";
import { lambdaHandler } from "@toolgate/module/lambda";

const letterCount = defineTool({
  name: "sdk_letter_count",
  description: "Counts the letters of a text.",
  parameters: z.object({ text: z.string().min(1).describe("The text to count") }),
  execute: ({ text }, ctx) => ({ letters: text.replace(/[^\p{L}]/gu, "").length, agent: ctx.agent.id }),
});

export const handler = lambdaHandler(defineModule({ id: "sdk_letters", description: "Tools about letters.", tools: [letterCount] }));
