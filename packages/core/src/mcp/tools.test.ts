import { expect, test } from "vitest";
import fc from "fast-check";
import { annotationsOf } from "../tool/exports";

test("annotationsOf - dangerous or requireConfirmation is destructive; readOnly is not; the other hints pass through; nothing set says nothing", () => {
  expect(annotationsOf({ disabled: false })).toEqual({});
  expect(annotationsOf({ dangerous: true, disabled: false })).toEqual({ destructiveHint: true });
  expect(annotationsOf({ requireConfirmation: true, disabled: false })).toEqual({ destructiveHint: true });
  expect(annotationsOf({ readOnly: true, disabled: false })).toEqual({ readOnlyHint: true, destructiveHint: false });
  expect(annotationsOf({ readOnly: true, dangerous: true, disabled: false })).toEqual({ readOnlyHint: true, destructiveHint: true });
  expect(annotationsOf({ idempotent: false, openWorld: true, disabled: false })).toEqual({ idempotentHint: false, openWorldHint: true });
});

test("annotationsOf - a tool that needs an operator's approval is never announced as non-destructive", () => {
  fc.assert(
    fc.property(fc.boolean(), fc.boolean(), fc.option(fc.boolean(), { nil: undefined }), (dangerous, requireConfirmation, readOnly) => {
      const annotations = annotationsOf({ dangerous, requireConfirmation, readOnly, disabled: false });
      if (dangerous || requireConfirmation) expect(annotations.destructiveHint).toBe(true);
    }),
  );
});
