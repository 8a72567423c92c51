import { expect, test } from "vitest";
import { declaredClient } from "./handshake";

test("declaredClient - elicitation as 2025-06-18 declares it means forms; 2025-11-25 names its modes; sampling is declared or not", () => {
  expect(declaredClient({ protocolVersion: "2025-06-18", capabilities: { elicitation: {} } })).toEqual({ protocolVersion: "2025-06-18", sampling: false, elicitation: { form: true, url: false } });
  expect(declaredClient({ protocolVersion: "2025-11-25", capabilities: { elicitation: { url: {} }, sampling: {} } })).toEqual({
    protocolVersion: "2025-11-25",
    sampling: true,
    elicitation: { form: false, url: true },
  });
  expect(declaredClient({ protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {}, url: {} } } }).elicitation).toEqual({ form: true, url: true });
  expect(declaredClient({ protocolVersion: "2025-03-26" })).toEqual({ protocolVersion: "2025-03-26", sampling: false });
});
