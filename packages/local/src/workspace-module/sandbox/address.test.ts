import { expect, test } from "vitest";
import { isInternalAddress } from "./address";

test.each([
  ["127.0.0.1", true],
  ["127.8.9.10", true],
  ["10.1.2.3", true],
  ["172.16.0.1", true],
  ["172.31.255.255", true],
  ["192.168.1.1", true],
  ["169.254.169.254", true],
  ["100.64.0.1", true],
  ["0.0.0.0", true],
  ["224.0.0.1", true],
  ["255.255.255.255", true],
  ["::1", true],
  ["::", true],
  ["::ffff:127.0.0.1", true],
  ["::ffff:a00:1", true],
  ["::127.0.0.1", true],
  ["64:ff9b::7f00:1", true],
  ["2002:7f00:1::", true],
  ["fd00::2", true],
  ["fe80::1", true],
  ["ff02::1", true],
  ["104.16.0.35", false],
  ["8.8.8.8", false],
  ["172.32.0.1", false],
  ["::ffff:8.8.8.8", false],
  ["2606:4700::6810:2223", false],
])("isInternalAddress - %s is %s", (address, internal) => {
  expect(isInternalAddress(address)).toBe(internal);
});
