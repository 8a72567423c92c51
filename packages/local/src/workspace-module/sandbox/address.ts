import { BlockList, isIPv6 } from "node:net";

/**
 * Addresses that name this machine or the networks around it rather than a host on the internet: loopback, private,
 * shared (carrier NAT), link-local, unspecified, multicast and reserved ranges, and the IPv6 forms that carry an IPv4
 * address inside (an IPv4-mapped address is checked as the IPv4 address it maps).
 */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  INTERNAL.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  INTERNAL.addSubnet(network, prefix, "ipv6");

export const isInternalAddress = (address: string): boolean => INTERNAL.check(address, isIPv6(address) ? "ipv6" : "ipv4");
