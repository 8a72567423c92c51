import * as z from "zod";

export const Message = z.object({
  messageId: z.string(),
  to: z.string(),
  from: z.string(),
  content: z.string(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof Message>;
